import type { Writable } from 'node:stream'

/** What `exitWhenFlushed` waits on: a stream that calls back once everything written before has gone out. */
type Output = Pick<Writable, 'write'>

/**
 * Exits with `code` once everything written to `outputs` has gone out. A pipe takes what fits in its buffer (about
 * 200 KB on Linux) and Node queues the rest; `process.exit()` drops that queue, so `bridle sessions --json | jq`
 * over many sessions got cut JSON. The callback of an empty write runs after every write queued before it.
 */
export async function exitWhenFlushed(
  code: number,
  outputs: readonly Output[] = [process.stdout, process.stderr],
  exit: (code: number) => void = process.exit,
): Promise<void> {
  // an output the reader closed (EPIPE) calls back with an error: nothing more can go out, so that is flushed too
  await Promise.all(outputs.map((output) => new Promise<void>((resolve) => output.write('', () => resolve()))))
  exit(code)
}
