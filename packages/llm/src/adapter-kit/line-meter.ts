/**
 * Bounds what the SSE parser may buffer. `eventsource-parser` keeps an unterminated line, and the data
 * lines of an event not yet ended by its blank line, in memory without limit: a server that never sends
 * a newline made the adapter buffer 256 MiB. The meter watches the raw bytes before they reach the
 * parser and reports the first line, or event, that outgrows the cap.
 */

/** Default `maxLineBytes`: 8 MiB for one SSE line, and for one event. */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024

const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a

/** Which bound a chunk broke. */
export type LineOverflow = 'line' | 'event'

export class LineMeter {
  private lineBytes = 0
  private lineIsComment = false
  /** Bytes of the completed non-comment lines of the event being built. */
  private eventBytes = 0
  private afterCR = false

  constructor(readonly maxBytes: number) {}

  /**
   * Accounts for `bytes` (the next slice of the body). Returns the bound the slice breaks, if any;
   * line terminators are LF, CR and CRLF (neither byte occurs inside a multi-byte UTF-8 character).
   */
  feed(bytes: Uint8Array): LineOverflow | undefined {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!
      if (byte === LF && this.afterCR) {
        this.afterCR = false
        continue
      }
      this.afterCR = byte === CR
      if (byte === LF || byte === CR) {
        // a blank line dispatches the event; a comment line adds nothing to it
        if (this.lineBytes === 0) this.eventBytes = 0
        else if (!this.lineIsComment) this.eventBytes += this.lineBytes
        this.lineBytes = 0
        continue
      }
      if (this.lineBytes === 0) this.lineIsComment = byte === COLON
      this.lineBytes++
      if (this.lineBytes > this.maxBytes) return 'line'
      if (!this.lineIsComment && this.eventBytes + this.lineBytes > this.maxBytes) return 'event'
    }
    return undefined
  }
}
