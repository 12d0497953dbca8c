/**
 * Child of seal-bytes.spec.ts: encodes one batch holding a 30 MB event, as a live session writes it, and prints how
 * far the process's peak memory rose above what it held before, in multiples of the event's text.
 */
import { encodeAppend } from '../../src/line-format.js'

// a flat string, as a prompt read from input is (the search flattens the repeat's rope in place, with no second copy)
const text = 'word '.repeat(6 * 1024 * 1024)
if (text.indexOf('\n') !== -1) throw new Error('unreachable')
const event = {
  type: 'user/message',
  seq: 1,
  time: 0,
  data: { id: 'm', role: 'user', content: [{ type: 'text', text }] },
}
;(globalThis as { gc?: () => void }).gc?.()
const before = process.memoryUsage().rss
const encoded = encodeAppend([event], 0)
const rise = process.resourceUsage().maxRSS * 1024 - before
process.stdout.write(`${JSON.stringify({ copies: rise / text.length, bytes: encoded.bytes.length })}\n`)
