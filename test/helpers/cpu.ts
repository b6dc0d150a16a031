// This process's CPU time so far (user + system), in ms: what a test bounds where wall time would flake on
// a loaded machine (a busy neighbour does not inflate it).
export function processCpuMs(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
