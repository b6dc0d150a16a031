// A start-up failure the operator fixes (a damaged file to restore or delete, a variable to set): its message
// names the file or variable and what to do, and the gateway prints it alone and exits 1, without a stack.
export class StartupError extends Error {
  override name = 'StartupError'
}
