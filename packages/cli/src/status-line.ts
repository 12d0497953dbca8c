import type { Io } from './terminal.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
/** Carriage return and erase-line: the status line is redrawn in place and erased before real output. */
const ERASE = '\r\x1b[2K'

/**
 * A one-line status on a terminal while the agent works (`⠹ deepseek/deepseek-chat · step 2 · waiting for the
 * model · 3.1s`), redrawn in place with a spinner and the elapsed time. It lives only at the start of an empty
 * line: callers erase it before writing output and show it again when they are back at a line start. On a
 * non-TTY stdout it never writes anything.
 */
export class StatusLine {
  private text: string | undefined
  private frame = 0
  private timer: NodeJS.Timeout | undefined
  private drawn = false

  constructor(
    private readonly io: Io,
    private readonly since: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Shows (or replaces) the status text. */
  show(text: string): void {
    if (!this.io.tty) return
    this.text = text
    this.draw()
    this.timer ??= setInterval(() => this.draw(), 100)
    // a status line must never keep the process alive
    this.timer.unref?.()
  }

  /** Erases the status line (before output) and stops redrawing until the next `show`. */
  clear(): void {
    this.text = undefined
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    if (this.drawn) this.io.out(ERASE)
    this.drawn = false
  }

  private draw(): void {
    if (this.text === undefined) return
    const seconds = ((this.now() - this.since()) / 1000).toFixed(1)
    const spinner = FRAMES[this.frame++ % FRAMES.length]
    const columns = process.stdout.columns || 80
    const line = `${spinner} ${this.text} · ${seconds}s`
    // never wrap: a wrapped status line could not be erased in place
    this.io.out(`${ERASE}${line.length >= columns ? `${line.slice(0, columns - 2)}…` : line}`)
    this.drawn = true
  }
}
