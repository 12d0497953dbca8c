import { constants } from 'node:fs'
import { open, stat } from 'node:fs/promises'
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

function cutLine(line: string, maxLineLength: number): string {
  if (line.length <= maxLineLength) return line
  return `${line.slice(0, maxLineLength)}… [line truncated: ${line.length} characters]`
}

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
 * Reads one page of a UTF-8 text file as numbered lines (`     7\t<text>`), streaming so that only the page is
 * held in memory. Refuses non-regular files and binary content (a NUL byte or invalid UTF-8 anywhere it reads),
 * caps the output at `maxBytes` and ends with a note saying whether the file ended or how to continue.
 * Throws `ReadFileError` (`NOT_A_FILE`, `BINARY_FILE`, `BAD_OFFSET`, `UNREADABLE`).
 */
export async function readPage(file: string, options: PageOptions): Promise<string> {
  const { offset, limit, maxBytes, maxLineLength, signal, displayPath } = options
  const info = await stat(file)
  if (info.isDirectory()) throw new ReadFileError(`"${displayPath}" is a directory, not a file`, 'NOT_A_FILE')
  if (!info.isFile()) throw new ReadFileError(`"${displayPath}" is not a regular file`, 'NOT_A_FILE')
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  try {
    if (!(await handle.stat()).isFile()) throw new ReadFileError(`"${displayPath}" is not a regular file`, 'NOT_A_FILE')
    const decoder = new TextDecoder('utf-8', { fatal: true })
    const buffer = Buffer.alloc(CHUNK)
    const out: string[] = []
    let outBytes = 0
    let lineNo = 0 // lines completed so far
    let pending = ''
    let truncated = false
    let done = false
    let eof = false

    const take = (line: string): void => {
      lineNo++
      if (done || lineNo < offset) return
      if (lineNo >= offset + limit) {
        done = true
        return
      }
      let text = numbered(lineNo, cutLine(line.endsWith('\r') ? line.slice(0, -1) : line, maxLineLength))
      const size = Buffer.byteLength(text, 'utf8') + 1
      if (outBytes + size > maxBytes) {
        if (out.length === 0) {
          text = cutToBytes(text, Math.max(0, maxBytes - 1))
          out.push(text)
        }
        truncated = true
        done = true
        return
      }
      out.push(text)
      outBytes += size
    }

    while (!done) {
      signal?.throwIfAborted()
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null)
      if (bytesRead === 0) {
        eof = true
        break
      }
      const bytes = buffer.subarray(0, bytesRead)
      if (bytes.includes(0)) throw new ReadFileError(`"${displayPath}" is a binary file (it contains NUL bytes); read_file only reads text`, 'BINARY_FILE')
      let text: string
      try {
        text = decoder.decode(bytes, { stream: true })
      } catch (e) {
        throw new ReadFileError(`"${displayPath}" is a binary file (it is not valid UTF-8 text); read_file only reads text`, 'BINARY_FILE', { cause: e })
      }
      const parts = (pending + text).split('\n')
      pending = parts.pop()!
      for (const part of parts) {
        take(part)
        if (done) break
      }
    }
    if (eof) {
      try {
        pending += decoder.decode()
      } catch (e) {
        throw new ReadFileError(`"${displayPath}" is a binary file (it is not valid UTF-8 text); read_file only reads text`, 'BINARY_FILE', { cause: e })
      }
      if (pending.length > 0) take(pending)
    }

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
  } finally {
    await handle.close()
  }
}
