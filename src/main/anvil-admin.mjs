#!/usr/bin/env node
// The anvil-admin bin (npm link, npx, a global install), plain JavaScript that any Node parses: the CLI
// itself is TypeScript, run by Node 24's type stripping, and an older Node on PATH would fail on it with a
// stack trace about a file extension. Here it is told which Node it is and what to run instead.
const major = Number(process.versions.node.split('.')[0])
if (!(major >= 24)) {
  const repository = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
  process.stderr.write(
    `anvil-admin needs Node 24 or newer; this is Node v${process.versions.node} (${process.execPath}).\n` +
      `Run it from the repository as \`npm run admin -- <command>\` (npm puts the Node 24 that \`npm ci\`\n` +
      `installed first on PATH), or put that Node first: PATH="${repository}/node_modules/.bin:$PATH" anvil-admin <command>\n`,
  )
  process.exit(2)
}
import('./admin-cli.ts')
