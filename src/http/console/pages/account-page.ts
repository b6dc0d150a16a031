import { PASSWORD_MAX, PASSWORD_MIN } from '../../../accounts/password.ts'
import type { SignedInUser } from '../context.ts'
import type { WorkspaceView } from '../views.ts'
import { html, type SafeHtml } from './html.ts'
import { when, workspacePath } from './layout.ts'

// The signed-in person's account: who they are, a new password (every other session signed out), and
// deleting the account with the workspaces it owns.
// passwordChanged: the page after a password change says so
export function accountBody(
  user: SignedInUser,
  workspaces: WorkspaceView[],
  passwordChanged: boolean,
): SafeHtml {
  const owned = workspaces.filter((w) => w.role === 'owner')
  const what =
    owned.length === 0
      ? 'Your account is'
      : `Your account and the ${owned.length === 1 ? 'workspace' : `${owned.length} workspaces`} you own are`
  return html`<h1>Your account</h1>
<section class="card" aria-labelledby="who-title">
  <h2 id="who-title">Signed in as</h2>
  <dl class="facts">
    <div><dt>Email</dt><dd>${user.email}</dd></div>
    <div><dt>Member since</dt><dd>${when(user.created_at)}</dd></div>
  </dl>
</section>
<section class="card" aria-labelledby="password-title">
  <h2 id="password-title">Change your password</h2>
  <form class="stack" data-api="/console/api/account/password" data-success="redirect:/console/account?changed=password">
    <div class="field">
      <label for="current-password">Current password</label>
      <input id="current-password" name="current_password" type="password" autocomplete="current-password" required maxlength="${PASSWORD_MAX}" data-raw>
    </div>
    <div class="field">
      <label for="new-password">New password</label>
      <input id="new-password" name="new_password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" aria-describedby="new-password-hint" data-raw>
      <p class="hint" id="new-password-hint">At least ${PASSWORD_MIN} characters. Every other browser signed in to this account is signed out.</p>
    </div>
    <div class="field">
      <label for="repeat-password">New password again</label>
      <input id="repeat-password" type="password" autocomplete="new-password" required maxlength="${PASSWORD_MAX}" data-raw data-must-match="new-password">
    </div>
    <p class="status-line" role="status">${passwordChanged ? 'Your password was changed. Other browsers were signed out.' : ''}</p>
    <div class="form-error" role="alert"></div>
    <button type="submit">Change password</button>
  </form>
</section>
<section class="card danger-zone" aria-labelledby="delete-account-title">
  <h2 id="delete-account-title">Delete your account</h2>
  <p>You will be signed out everywhere and your email can sign up again. The workspaces you own are deleted with the account, with everything in them${owned.length > 0 ? html`: ${owned.map((w, i) => html`${i > 0 ? ', ' : ''}<a href="${workspacePath(w.id, 'settings')}">${w.name}</a>`)}` : ''}.</p>
  <p>Deleting never revokes keys: while a workspace you own has a live key or a job queued or running, the account is not deleted.</p>
  <button type="button" class="danger" data-open="delete-account-dialog">Delete account</button>
</section>
<dialog id="delete-account-dialog" aria-labelledby="delete-account-dialog-title">
  <form data-api="/console/api/account/delete" data-success="redirect:/console/sign-up">
    <h2 id="delete-account-dialog-title">Delete your account?</h2>
    <p>${what} deleted for good.</p>
    <div class="field">
      <label for="delete-password">Your password</label>
      <input id="delete-password" name="password" type="password" autocomplete="current-password" required maxlength="${PASSWORD_MAX}" data-raw autofocus>
    </div>
    <div class="form-error" role="alert"></div>
    <div class="dialog-actions">
      <button type="button" class="secondary" data-close>Cancel</button>
      <button type="submit" class="danger">Delete account</button>
    </div>
  </form>
</dialog>`
}
