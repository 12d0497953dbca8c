import { createInterface, type Interface } from 'node:readline'
import type { Io } from './terminal.js'

/** Switches a TTY input between raw mode (readline's line editing) and cooked mode (Ctrl-C is a SIGINT). */
function setRawMode(input: NodeJS.ReadableStream, raw: boolean): void {
  ;(input as { setRawMode?: (raw: boolean) => unknown }).setRawMode?.(raw)
}

/** The prompt `bridle dev` shows on a terminal. */
const DEV_PROMPT = 'bridle› '

/** Where `bridle dev` reads prompts from: a terminal with a readline prompt, or a pipe (one prompt per line). */
export interface DevInput {
  readonly interactive: boolean
  lines(): AsyncIterable<string>
  /** Idle again: shows the prompt on a terminal, says `bridle dev: ready` on a pipe. */
  ready(): void
  /** A prompt runs: stop echoing input into the streamed answer (typed lines wait). */
  busy(): void
  /** Writes a report between prompts without tearing the line being typed. */
  announce(write: () => void): void
  /** Ctrl-C on the terminal; without a handler readline would only pause. */
  onInterrupt(handler: () => void): void
  close(): void
}

/**
 * Every line `rl` reads, in order, from the moment it is created until it closes (end of input, Ctrl-D, `close()`).
 * readline emits a line whether or not anyone iterates it yet, and its own async iterator only sees lines emitted
 * after it was made: piped input that arrives while the app boots would be lost. This queue keeps them.
 */
function lineQueue(rl: Interface): AsyncIterable<string> {
  const lines: string[] = []
  let ended = false
  let wake: (() => void) | undefined
  // listening starts now, not when the iteration does
  rl.on('line', (line) => {
    lines.push(line)
    wake?.()
  })
  rl.on('close', () => {
    ended = true
    wake?.()
  })
  return {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        const line = lines.shift()
        if (line !== undefined) yield line
        else if (ended) return
        else await new Promise<void>((resolve) => (wake = resolve))
      }
    },
  }
}

/**
 * Reads prompts from `input`. When `input` is a TTY, a readline prompt with line editing (on stdout); otherwise
 * plain lines, and each finished prompt says `bridle dev: ready` on stderr (what scripts wait for).
 */
export function devInput(
  input: NodeJS.ReadableStream,
  io: Io,
  output: NodeJS.WritableStream = process.stdout,
): DevInput {
  const interactive = Boolean((input as { isTTY?: boolean }).isTTY)
  const rl: Interface = interactive
    ? createInterface({ input, output, terminal: true, prompt: DEV_PROMPT, historySize: 200 })
    : createInterface({ input, terminal: false })
  const queue = lineQueue(rl)
  let idle = false
  return {
    interactive,
    lines: () => queue,
    ready() {
      idle = true
      if (interactive) {
        setRawMode(input, true)
        rl.resume()
        rl.prompt()
      } else io.err('bridle dev: ready\n')
    },
    busy() {
      idle = false
      if (!interactive) return
      rl.pause()
      // readline's raw mode turns Ctrl-C into a keypress that a paused readline never reads; in cooked mode the
      // terminal makes it a SIGINT, which cancels the running turn (cancelOnInterrupt). Typed lines still wait.
      setRawMode(input, false)
    },
    announce(write) {
      if (!interactive || !idle) return write()
      // erase the prompt line, write, then draw the prompt again with what was typed so far
      output.write('\r\x1b[2K')
      write()
      rl.prompt(true)
    },
    onInterrupt(handler) {
      rl.on('SIGINT', handler)
    },
    close() {
      rl.close()
      // leave the prompt's line, so what follows starts on a line of its own
      if (interactive && idle) output.write('\n')
      idle = false
    },
  }
}
