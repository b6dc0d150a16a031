// Anvil console: the little script behind the server-rendered pages. Forms marked data-api submit
// JSON to the console API with the session's CSRF token; dialogs confirm rotation and revocation; a
// new key is shown once, with copy buttons. No framework, no build step, nothing inline (strict CSP).

const csrfToken = document.querySelector('meta[name="csrf-token"]')?.getAttribute('content') ?? ''

class ApiError extends Error {
  constructor(status, error) {
    super(error.message)
    this.status = status
    this.error = error
  }
}

async function callApi(method, url, body) {
  const headers = { accept: 'application/json' }
  if (csrfToken) headers['x-csrf-token'] = csrfToken
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(url, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const payload = await response.json().catch(() => null)
  if (response.ok && payload?.ok) return payload.data
  // a page that had a session lost it (expired, signed out elsewhere): sign in again, then come back
  if (response.status === 401 && csrfToken) {
    location.assign(`/console/sign-in?next=${encodeURIComponent(location.pathname)}`)
  }
  throw new ApiError(
    response.status,
    payload?.error ?? { code: 'ERR_INTERNAL', message: `The server answered ${response.status}. Try again.` },
  )
}

// Form fields → a JSON object. data-kind says how: "list" (checkboxes → array), "lines" (textarea →
// array of non-empty lines), "expiry" (seconds from now → ISO 8601), "int"; data-raw keeps spaces.
function formBody(form) {
  const body = Object.create(null)
  for (const el of form.elements) {
    if (!el.name || el.disabled || el.type === 'submit' || el.tagName === 'BUTTON') continue
    const kind = el.dataset.kind
    if (el.type === 'checkbox') {
      if (kind === 'list') {
        body[el.name] ??= []
        if (el.checked) body[el.name].push(el.value)
      } else body[el.name] = el.checked
      continue
    }
    if (el.type === 'radio') {
      if (el.checked) body[el.name] = el.value
      continue
    }
    const value = 'raw' in el.dataset ? el.value : el.value.trim()
    if (kind === 'lines') {
      const lines = value
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean)
      if (lines.length > 0) body[el.name] = lines
    } else if (kind === 'expiry') {
      if (value) body[el.name] = new Date(Date.now() + Number(value) * 1000).toISOString()
    } else if (kind === 'int') {
      body[el.name] = Number(value)
    } else if (value !== '' || el.required) {
      body[el.name] = value
    }
  }
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value) && value.length === 0) delete body[name]
  }
  return body
}

function clearErrors(form) {
  for (const p of form.querySelectorAll('.field-error')) p.remove()
  for (const el of form.querySelectorAll('[aria-invalid]')) {
    el.removeAttribute('aria-invalid')
    const ids = (el.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => !id.endsWith('-error'))
    if (ids.length > 0) el.setAttribute('aria-describedby', ids.join(' '))
    else el.removeAttribute('aria-describedby')
  }
  const box = form.querySelector('.form-error')
  if (box) box.textContent = ''
}

// The API's message goes in the form's alert region; each issue is attached to its field.
function showErrors(form, err) {
  clearErrors(form)
  const error =
    err instanceof ApiError ? err.error : { message: 'The network failed. Check it and try again.' }
  const box = form.querySelector('.form-error')
  if (box) box.textContent = error.message
  let first = null
  for (const issue of error.details?.issues ?? []) {
    const name = String(issue.path).split('.')[0]
    const field = form.elements.namedItem(name)
    if (!(field instanceof HTMLElement) || !field.id) continue
    const note = document.createElement('p')
    note.className = 'field-error'
    note.id = `${field.id}-error`
    note.textContent = `${field.labels?.[0]?.textContent?.trim() ?? name}: ${issue.message}`
    field.insertAdjacentElement('afterend', note)
    field.setAttribute('aria-invalid', 'true')
    field.setAttribute(
      'aria-describedby',
      `${field.getAttribute('aria-describedby') ?? ''} ${note.id}`.trim(),
    )
    first ??= field
  }
  first?.focus()
}

// "redirect:/console/workspaces/{workspace.id}" → fills {path} from the answer; same-origin console paths only.
function redirectTarget(template, data) {
  const url = template.replace(/\{([a-z_.]+)\}/g, (_, path) =>
    encodeURIComponent(path.split('.').reduce((v, k) => v?.[k], data) ?? ''),
  )
  return url.startsWith('/console') ? url : '/console/workspaces'
}

function showKey(data) {
  const dialog = document.getElementById('key-dialog')
  document.getElementById('new-key').value = data.key
  document.getElementById('new-curl').value = data.curl
  dialog.querySelector('.copy-status').textContent = ''
  // the key leaves the page with the dialog; the reload lists it by prefix only
  dialog.addEventListener(
    'close',
    () => {
      document.getElementById('new-key').value = ''
      document.getElementById('new-curl').value = ''
      location.reload()
    },
    { once: true },
  )
  dialog.showModal()
  // shown whole: each box grows to its text, wrapped at the dialog's width (a phone's too)
  for (const id of ['new-key', 'new-curl']) fitToContent(document.getElementById(id))
  document.getElementById('new-key').select()
}

function fitToContent(area) {
  area.style.height = 'auto'
  area.style.height = `${area.scrollHeight + area.offsetHeight - area.clientHeight}px`
}

async function onSuccess(form, data) {
  const action = form.dataset.success ?? 'reload'
  if (action.startsWith('redirect:')) {
    location.assign(redirectTarget(action.slice('redirect:'.length), data))
  } else if (action === 'show-key') {
    form.closest('dialog')?.close()
    form.reset()
    showKey(data)
  } else {
    location.reload()
  }
}

// Checks made before anything is sent: a typed confirmation (data-must-equal, the name of what is
// deleted) and a repeated password (data-must-match, the id of the first one). The message goes in the
// form's alert region, the field is marked invalid and focused.
function confirmationIssue(form) {
  for (const el of form.querySelectorAll('[data-must-equal]')) {
    if (el.value.trim() !== el.dataset.mustEqual)
      return { el, message: `The name does not match. Type ${el.dataset.mustEqual} exactly.` }
  }
  for (const el of form.querySelectorAll('[data-must-match]')) {
    if (el.value !== document.getElementById(el.dataset.mustMatch)?.value)
      return { el, message: 'The two new passwords are not the same.' }
  }
  return null
}

function showConfirmationIssue(form, { el, message }) {
  clearErrors(form)
  const box = form.querySelector('.form-error')
  if (box) box.textContent = message
  el.setAttribute('aria-invalid', 'true')
  el.focus()
}

document.addEventListener('submit', async (event) => {
  const form = event.target
  if (!(form instanceof HTMLFormElement) || !('api' in form.dataset)) return
  event.preventDefault()
  if (!form.dataset.api || form.getAttribute('aria-busy') === 'true') return
  const issue = confirmationIssue(form)
  if (issue) return showConfirmationIssue(form, issue)
  const submit = form.querySelector('[type="submit"]')
  form.setAttribute('aria-busy', 'true')
  if (submit) submit.disabled = true
  const method = form.dataset.method ?? 'POST'
  try {
    // a DELETE names what it deletes in its path and sends no body
    const body = method === 'DELETE' ? undefined : formBody(form)
    await onSuccess(form, await callApi(method, form.dataset.api, body))
  } catch (err) {
    showErrors(form, err)
  } finally {
    form.removeAttribute('aria-busy')
    if (submit) submit.disabled = false
  }
})

async function copyField(id) {
  const field = document.getElementById(id)
  const status = field.closest('dialog')?.querySelector('.copy-status')
  try {
    await navigator.clipboard.writeText(field.value)
    if (status) status.textContent = 'Copied to the clipboard.'
  } catch {
    field.focus()
    field.select()
    if (status) status.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.'
  }
}

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target : null
  const opener = target?.closest('[data-open]')
  if (opener) {
    const dialog = document.getElementById(opener.dataset.open)
    const form = dialog.querySelector('form[data-api]')
    if (opener.dataset.api) form.dataset.api = opener.dataset.api
    form.reset()
    clearErrors(form)
    for (const name of ['label', 'detail']) {
      for (const slot of dialog.querySelectorAll(`[data-slot="${name}"]`))
        slot.textContent = opener.dataset[name] ?? ''
    }
    const field = dialog.querySelector('[data-slot-value]')
    if (field) field.value = opener.dataset.value ?? ''
    dialog.showModal()
    if (field && document.activeElement === field) field.select()
    return
  }
  const closer = target?.closest('[data-close]')
  if (closer) {
    closer.closest('dialog')?.close()
    return
  }
  const copy = target?.closest('[data-copy]')
  if (copy) void copyField(copy.dataset.copy)
})

// The workspace switcher is a <details>: Escape or a click elsewhere closes it.
function closeSwitchers(except) {
  for (const menu of document.querySelectorAll('details.switcher[open]'))
    if (menu !== except) menu.open = false
}
document.addEventListener('click', (event) => {
  const inside = event.target instanceof Element ? event.target.closest('details.switcher') : null
  closeSwitchers(inside)
})
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return
  const open = document.querySelector('details.switcher[open]')
  if (!open) return
  open.open = false
  open.querySelector('summary')?.focus()
})
