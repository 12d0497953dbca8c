/**
 * Ctrl-C while a turn runs (`run`, and `dev` while it answers): the first SIGINT cancels the turn, which ends
 * `aborted` with what it streamed so far kept in the session, and the command goes on to flush the log and print the
 * session id; a second SIGINT exits at once with 130, for a turn that does not stop. Returns the disposer, called
 * when the turn is over (`dev` at its prompt handles Ctrl-C through readline).
 */
export function cancelOnInterrupt(cancel: () => void): () => void {
  let interrupted = false
  const onInterrupt = () => {
    if (interrupted) process.exit(130)
    interrupted = true
    cancel()
  }
  process.on('SIGINT', onInterrupt)
  return () => void process.off('SIGINT', onInterrupt)
}
