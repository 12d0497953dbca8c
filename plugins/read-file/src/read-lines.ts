import { constants } from 'node:fs'
import { open, stat, type FileHandle } from 'node:fs/promises'
import { knownSecrets } from '@bridle/llm'
import { ReadFileError } from './errors.js'

/** What one page read needs. `offset` is the 1-based first line; `limit` the most lines to return. */
export interface PageOptions {
  offset: number
  limit: number
  /** Cap on the UTF-8 size of the returned text, notes excluded. */
  maxBytes: number
  /** Characters kept per line; the rest is replaced by a marker. */
  maxLineLength: number
  signal?: AbortSignal
  /** How the file is named in messages (the model's own path). */
  displayPath: string
}

const CHUNK = 64 * 1024

function numbered(n: number, text: string): string {
  return `${String(n).padStart(6)}\t${text}`
}

/** Cuts `text` to at most `bytes` UTF-8 bytes without splitting a character. */
function cutToBytes(text: string, bytes: number): string {
  const buf = Buffer.from(text, 'utf8')
  if (buf.length <= bytes) return text
  return new TextDecoder('utf-8', { fatal: false }).decode(buf.subarray(0, bytes)).replace(/\uFFFD$/, '')
}

/**
 * Reads one page of a UTF-8 text file as numbered lines (`     7\t<text>`). `file` is a path (opened here with
 * `O_NOFOLLOW`, after refusing directories and special files) or a handle the caller opened and will close.
 *
 * Streams in 64 KiB chunks and holds only the page: lines before `offset` are counted, never kept, and of each line
 * inside the page only its first `maxLineLength` characters are kept (the rest is counted for the truncation marker).
 * Memory is therefore bounded by the chunk, `maxLineLength` and `maxBytes`, and time is linear in the bytes read,
 * however long a line is. Refuses binary content (a NUL byte or invalid UTF-8 anywhere it reads), caps the output at
 * `maxBytes` and ends with a note saying whether the file ended or how to continue.
 * Throws `ReadFileError` (`NOT_A_FILE`, `BINARY_FILE`, `BAD_OFFSET`, `UNREADABLE`).
 */
export async function readPage(file: string | FileHandle, options: PageOptions): Promise<string> {
  if (typeof file !== 'string') return readOpened(file, options)
  const { displayPath } = options
  const info = await stat(file)
  if (info.isDirectory()) throw new ReadFileError(`"${displayPath}" is a directory, not a file`, 'NOT_A_FILE')
  if (!info.isFile()) throw new ReadFileError(`"${displayPath}" is not a regular file`, 'NOT_A_FILE')
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    if (!(await handle.stat()).isFile()) throw new ReadFileError(`"${displayPath}" is not a regular file`, 'NOT_A_FILE')
    return await readOpened(handle, options)
  } finally {
    await handle.close()
  }
}

function binary(displayPath: string, why: string, cause?: unknown): ReadFileError {
  const message = `"${displayPath}" is a binary file (${why}); read_file only reads text`
  return cause === undefined
    ? new ReadFileError(message, 'BINARY_FILE')
    : new ReadFileError(message, 'BINARY_FILE', { cause })
}

async function readOpened(handle: FileHandle, options: PageOptions): Promise<string> {
  const { offset, maxBytes, signal, displayPath } = options
  const page = new PageBuilder(options)
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const buffer = Buffer.alloc(CHUNK)
  let eof = false
  while (!page.done) {
    signal?.throwIfAborted()
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, null)
    if (bytesRead === 0) {
      eof = true
      break
    }
    const bytes = buffer.subarray(0, bytesRead)
    if (bytes.includes(0)) throw binary(displayPath, 'it contains NUL bytes')
    let text: string
    try {
      text = decoder.decode(bytes, { stream: true })
    } catch (e) {
      throw binary(displayPath, 'it is not valid UTF-8 text', e)
    }
    page.feed(text)
  }
  if (eof) {
    try {
      page.feed(decoder.decode())
    } catch (e) {
      throw binary(displayPath, 'it is not valid UTF-8 text', e)
    }
    page.end()
  }

  const { out, lineNo, truncated, done } = page
  if (lineNo === 0 && eof) return `(empty file: "${displayPath}" has no content)`
  if (out.length === 0 && eof) {
    throw new ReadFileError(`offset ${offset} is past the end of "${displayPath}" (${lineNo} lines)`, 'BAD_OFFSET')
  }
  const last = offset + out.length - 1
  let note: string
  if (truncated) {
    note = `[output truncated: the ${maxBytes}-byte cap was reached after line ${last}; call read_file with offset=${last + 1} to continue]`
  } else if (eof && !done) {
    note = `[end of file: lines ${offset}-${last} of ${lineNo}]`
  } else {
    note = `[showing lines ${offset}-${last}; more lines follow; call read_file with offset=${last + 1} to continue]`
  }
  return `${out.join('\n')}\n${note}`
}

/**
 * Turns decoded text, fed chunk by chunk, into the page's numbered lines. It never joins a line's chunks into one
 * string: the current line is kept only as its first `maxLineLength + 1` characters (and room for a known secret across
 * the cut) plus a running length, so a single 32 MiB line costs what its first 2,000 characters cost.
 */
class PageBuilder {
  readonly out: string[] = []
  /** Lines completed so far. */
  lineNo = 0
  truncated = false
  done = false
  private outBytes = 0
  /** The kept head of the current line (inside the page only), its full length, and whether it ends with `\r`. */
  private head = ''
  private length = 0
  private endsWithCr = false
  private readonly keep: number

  constructor(private readonly options: PageOptions) {
    // a line is cut only after known secrets are redacted (docs/security.md#what-is-filtered): keep enough past the cut
    // for a secret that straddles it to be whole, and so recognized
    this.keep = options.maxLineLength + 1 + knownSecrets().longestForm
  }

  /** True while the line being read falls inside the requested page (only then is its text kept). */
  private get inPage(): boolean {
    return this.lineNo + 1 >= this.options.offset
  }

  feed(text: string): void {
    let from = 0
    while (!this.done && from <= text.length) {
      // Any character after the page's last line means more lines follow; nothing more needs reading.
      if (this.lineNo >= this.options.offset + this.options.limit - 1 && from < text.length) {
        this.done = true
        return
      }
      const newline = text.indexOf('\n', from)
      const end = newline < 0 ? text.length : newline
      if (end > from) this.extend(text, from, end)
      if (newline < 0) return
      this.finishLine()
      from = newline + 1
    }
  }

  /** At end of file: a last line without a final newline still counts. */
  end(): void {
    if (!this.done && this.length > 0) this.finishLine()
  }

  private extend(text: string, from: number, end: number): void {
    if (this.inPage && this.head.length < this.keep) {
      this.head += text.slice(from, Math.min(end, from + this.keep - this.head.length))
    }
    this.length += end - from
    this.endsWithCr = text.charCodeAt(end - 1) === 13
  }

  private finishLine(): void {
    const { offset, maxBytes, maxLineLength } = this.options
    const length = this.endsWithCr ? this.length - 1 : this.length
    const head = this.head
    this.head = ''
    this.length = 0
    this.endsWithCr = false
    this.lineNo++
    if (this.lineNo < offset) return
    const secrets = knownSecrets()
    const body =
      length <= maxLineLength
        ? head.slice(0, length)
        : `${secrets.redactSlice(head, 0, maxLineLength)}… [line truncated: ${length} characters]`
    let text = numbered(this.lineNo, body)
    const size = Buffer.byteLength(text, 'utf8') + 1
    if (this.outBytes + size > maxBytes) {
      if (this.out.length === 0) {
        text = cutToBytes(secrets.redact(text), Math.max(0, maxBytes - 1))
        this.out.push(text)
      }
      this.truncated = true
      this.done = true
      return
    }
    this.out.push(text)
    this.outBytes += size
  }
}
