import { Logger } from 'cordis'
import type { Io } from './terminal.js'

type LogRecord = Parameters<NonNullable<Logger.Target['record']>>[0]

/** Records logged while a plugin starts, released if it started and dropped if the CLI reports its failure. */
export interface HeldLog {
  release(): void
  drop(): void
}

/**
 * Routes cordis' logger (which prints to stdout with `console.log`, stack dumps included) to the CLI's stderr in
 * the CLI's grammar: warnings and errors as one `bridle:` line each, the full record only with `--verbose`.
 */
export class CordisLog {
  private readonly held: LogRecord[][] = []
  private readonly saved: Logger.Target[]
  private readonly target: Logger.Target

  constructor(
    private readonly io: Io,
    readonly verbose: boolean,
  ) {
    this.target = {
      colors: 0,
      record: (record) => {
        const held = this.held.at(-1)
        if (held) held.push(record)
        else this.print(record)
      },
    }
    this.saved = Logger.targets.splice(0, Logger.targets.length, this.target)
  }

  /** Holds what cordis logs from now until `release()` (print it) or `drop()` (the CLI says it in one line). */
  hold(): HeldLog {
    const records: LogRecord[] = []
    this.held.push(records)
    const end = () => void this.held.splice(this.held.indexOf(records), 1)
    return {
      release: () => {
        end()
        for (const record of records) this.print(record)
      },
      // the CLI prints the failure itself (its stack too, with --verbose)
      drop: end,
    }
  }

  /** Puts cordis' own targets back (and any added meanwhile). */
  close(): void {
    const added = Logger.targets.filter((t) => t !== this.target)
    Logger.targets.splice(0, Logger.targets.length, ...this.saved, ...added)
    if (active === this) active = undefined
  }

  private print(record: LogRecord): void {
    if (this.verbose) {
      this.io.err(`bridle: [${record.type}] ${record.name}: ${record.content}\n`)
      return
    }
    if (record.type !== 'error' && record.type !== 'warn') return
    const first = record.content.split('\n')[0] ?? ''
    this.io.err(`bridle: ${record.type === 'warn' ? 'warning' : 'error'} (${record.name}): ${first}\n`)
  }
}

let active: CordisLog | undefined

/** Starts routing cordis' logger for one CLI invocation; `close()` it when the command ends. */
export function routeCordisLog(io: Io, verbose: boolean): CordisLog {
  active?.close()
  active = new CordisLog(io, verbose)
  return active
}

/** Holds cordis log records while a plugin starts (a no-op outside a CLI invocation). */
export function holdCordisLog(): HeldLog {
  return active?.hold() ?? { release: () => {}, drop: () => {} }
}
