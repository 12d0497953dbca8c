import type { Io } from '../terminal.js'

/** What every command's registration needs: where to write, where to put its exit code, the global options. */
export interface CommandContext {
  io: Io
  exit: { code: number }
  /** `--config FILE`, read when the action runs (global options are parsed by then). */
  config: () => string | undefined
}
