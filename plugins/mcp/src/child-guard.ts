/**
 * Stdio children that are still running, so that a host which exits without disposing its plugins (`process.exit`
 * at the end of a CLI command) does not leave them behind: on the process's `exit` event each gets SIGTERM. Most
 * servers also exit on their own when their stdin closes; this covers the ones that do not. It is process-wide on
 * purpose: the resource it guards (child processes) is process-wide, and it holds no Bridle registration.
 */
const running = new Set<number>()

function terminateAll(): void {
  for (const pid of running) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {
      // already gone
    }
  }
}

/** Guards `pid` until the returned release is called (when the child has exited). */
export function guardChild(pid: number): () => void {
  if (running.size === 0) process.on('exit', terminateAll)
  running.add(pid)
  return () => {
    if (!running.delete(pid)) return
    if (running.size === 0) process.off('exit', terminateAll)
  }
}
