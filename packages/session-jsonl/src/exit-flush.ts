/**
 * Durability that does not depend on `dispose()`: every live JSONL backend flushes its queued batches when the
 * process is about to exit normally (`beforeExit`). One process listener serves all backends, so a process (or a
 * test worker) with many backends never trips Node's max-listeners warning.
 */
interface ExitFlushable {
  flushBeforeExit(): Promise<void> | undefined
}

const live = new Set<ExitFlushable>()

function onBeforeExit(): void {
  for (const backend of live) void backend.flushBeforeExit()
}

/** Flushes `backend` on `beforeExit` until the returned function is called (the plugin stopped). */
export function flushOnExit(backend: ExitFlushable): () => void {
  live.add(backend)
  if (live.size === 1) process.on('beforeExit', onBeforeExit)
  return () => {
    if (!live.delete(backend)) return
    if (live.size === 0) process.off('beforeExit', onBeforeExit)
  }
}
