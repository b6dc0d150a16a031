import { html, type SafeHtml } from './html.ts'

// The confirmations the projects page opens from a row's Rename and Delete buttons: the button names the
// API call (data-api), what it is about (data-label, data-detail) and the current name (data-value); the
// script fills them in (console.js). Delete opens on Cancel, as revocation does.
export function renameDialog(): SafeHtml {
  return html`<dialog id="rename-dialog" aria-labelledby="rename-dialog-title">
  <form data-api="" data-method="PATCH" data-success="reload">
    <h2 id="rename-dialog-title">Rename <span data-slot="label"></span></h2>
    <div class="field">
      <label for="rename-name">New name</label>
      <input id="rename-name" name="name" required maxlength="100" data-slot-value autofocus>
    </div>
    <div class="form-error" role="alert"></div>
    <div class="dialog-actions">
      <button type="button" class="secondary" data-close>Cancel</button>
      <button type="submit">Rename</button>
    </div>
  </form>
</dialog>`
}

export function deleteDialog(): SafeHtml {
  return html`<dialog id="delete-dialog" aria-labelledby="delete-dialog-title">
  <form data-api="" data-method="DELETE" data-success="reload">
    <h2 id="delete-dialog-title">Delete <span data-slot="label"></span>?</h2>
    <p data-slot="detail"></p>
    <p>A delete never revokes keys: while a key in it is live, it is refused. This cannot be undone.</p>
    <div class="form-error" role="alert"></div>
    <div class="dialog-actions">
      <button type="button" class="secondary" data-close autofocus>Cancel</button>
      <button type="submit" class="danger">Delete</button>
    </div>
  </form>
</dialog>`
}
