import { PASSWORD_MAX, PASSWORD_MIN } from '../../../accounts/password.ts'
import { html, type SafeHtml } from './html.ts'

// A "next" path after sign-in is only ever a console page of this origin (no open redirect).
const NEXT = /^\/console(?:\/[A-Za-z0-9_-]+)*\/?(?:\?[A-Za-z0-9=&_-]*)?$/

export function safeNext(next: unknown): string {
  return typeof next === 'string' && NEXT.test(next) ? next : '/console/workspaces'
}

export function signInForm(next: string): SafeHtml {
  return html`<h1>Sign in</h1>
<form class="card stack" data-api="/console/api/signin" data-success="redirect:${next}">
  <div class="field">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" autofocus>
  </div>
  <div class="field">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="${PASSWORD_MAX}" data-raw>
  </div>
  <div class="form-error" role="alert"></div>
  <button type="submit">Sign in</button>
</form>
<p>New to Anvil? <a href="/console/sign-up">Create an account</a></p>`
}

export function signUpForm(): SafeHtml {
  return html`<h1>Create your Anvil account</h1>
<form class="card stack" data-api="/console/api/signup" data-success="redirect:/console/workspaces/{workspace.id}">
  <div class="field">
    <label for="email">Email</label>
    <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" autofocus>
  </div>
  <div class="field">
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" aria-describedby="password-hint" data-raw>
    <p class="hint" id="password-hint">At least ${PASSWORD_MIN} characters. A passphrase of a few words is good.</p>
  </div>
  <div class="field">
    <label for="workspace_name">Workspace name</label>
    <input id="workspace_name" name="workspace_name" value="My workspace" required maxlength="100" aria-describedby="workspace-hint">
    <p class="hint" id="workspace-hint">It holds your projects, environments, API keys and plan; you can create more later.</p>
  </div>
  <div class="form-error" role="alert"></div>
  <button type="submit">Create account</button>
</form>
<p>Already have an account? <a href="/console/sign-in">Sign in</a></p>`
}
