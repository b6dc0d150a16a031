// The decisions clients code against, where docs/api.md leaves room; rendered at the top of /docs.
export const API_DESCRIPTION = `
Anvil is a JSON-over-HTTPS API of developer utilities. Keys, usage and your account are in the
[developer console](/console).

**Envelope.** Success is \`{"ok": true, "data": {...}}\`; failure is
\`{"error": {"type", "message", "code", "details"?}}\` with a stable \`ERR_*\` code. Every response carries
\`Request-Id\` (yours, if you send a token of 8–128 characters from \`A-Za-z0-9._:-\`; otherwise ours).

**Authentication.** \`Authorization: Bearer anvil_live_…\`, or HTTP Basic with the key as the user name and an empty password (\`curl -u anvil_live_…:\`). A 401 carries \`WWW-Authenticate: Bearer realm="anvil"\`.
Malformed, unknown, revoked and expired keys all answer \`ERR_INVALID_API_KEY\`, so a response never tells an
attacker which keys exist.

**Limits.** Every keyed \`/v1\` response carries \`RateLimit-Policy\` and \`RateLimit\` (IETF httpapi draft-11
structured fields) with these policies: \`"second"\` (the key's per-second cap), \`"workspace-second"\` (the
workspace's), \`"month"\` (the workspace's monthly quota, window = the current UTC month in seconds) and, when the
key has its own quota, \`"key-month"\`. \`t\` is the number of seconds until that window is full again (rate) or
resets (month). Per-second caps are a token bucket of \`q\` tokens refilled continuously (GCRA), so a burst of \`q\`
is allowed and then one request every \`1/q\` s. 429s carry \`Retry-After\` (integer seconds ≥ 1). Requests without
a valid key (401), and endpoints that need none, carry no RateLimit headers: no policy applies to them.

**Errors beyond API.md's table.** \`408 ERR_REQUEST_TIMEOUT\` when a request body does not arrive within 60 s (HTTP/1.1 and each HTTP/2 stream),
\`400 ERR_BAD_REQUEST\` for malformed HTTP (bad URL encoding, bad Content-Length, oversized headers → 431),
\`401 ERR_UNAUTHORIZED\` for a wrong admin token.

**Strict input.** A body or query field an operation does not define is refused with \`400 ERR_VALIDATION\`, one
issue per unknown field at its path, with \`did_you_mean\` when a defined field is within two edits:
\`{"input":"x","outptu_encoding":"base64"}\` → \`Unknown field "outptu_encoding" in the body (did you mean
"output_encoding"?).\` Members of your data (JSON documents, JWT claims, JWKs) are never refused.

**Browsers (CORS).** Origins listed by the operator (\`CORS_ALLOWED_ORIGINS\`; none by default) may call \`/v1\`
cross-origin; a preflight from any other origin answers \`403 ERR_CORS_ORIGIN\`. \`OPTIONS\` is never 405.
\`RateLimit\`, \`RateLimit-Policy\`, \`Request-Id\`, \`Retry-After\`, \`Server-Timing\`, \`Idempotent-Replayed\`, \`Location\` and
\`Traceresponse\` are exposed to scripts (\`Access-Control-Expose-Headers\`); credentials never are. Preflights
(\`OPTIONS\`) are answered for every path and are not listed as operations.

**Compression.** JSON answers of at least 1400 bytes are compressed (\`br\`, else \`gzip\`) when your
\`Accept-Encoding\` allows it: \`Content-Encoding\` and \`Vary: Accept-Encoding\` say so.

**Tracing.** When the operator turns tracing on, a \`traceparent\` you send is continued and every answer carries
\`Traceresponse\` (W3C Trace Context Level 2), the ids to find your request by in the traces.

**Safe retries.** Every POST that creates takes an \`Idempotency-Key\` header (Stripe's semantics): a retry with
the same key and request within 24 h answers the first response again with \`Idempotent-Replayed: true\`;
another request with the key is \`422 ERR_IDEMPOTENCY_MISMATCH\`, a repeat while the first still runs
\`409 ERR_IDEMPOTENCY_IN_PROGRESS\` with \`Retry-After\`. An answer is kept only once the create started executing
(its success, a 404, a 409 \`ERR_CONFLICT\`): a refusal before it ran (validation, access, limits) or a 5xx
leaves the key free for a retry. A first answer too large to keep (16 KiB) replays as
\`409 ERR_IDEMPOTENCY_NOT_REPLAYABLE\`.

**JSON bodies** must be UTF-8 (\`charset=utf-8\` allowed, any other charset is 415). A body over the plan's limit is
refused from its \`Content-Length\` before it is read, or as soon as the streamed bytes pass the limit.
`.trim()
