/**
 * The long-line child: reads one page of a file whose first line is huge, with the heap capped by the parent
 * (`--max-old-space-size`). It prints the page's first and last line, its memory and the time taken as JSON; running
 * out of heap kills it instead.
 *
 * argv: <file>
 */
import { readPage } from '../../src/read-lines.js'

const [file] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: child <file>')

const started = performance.now()
const page = await readPage(file, {
  offset: 1,
  limit: 2,
  maxBytes: 64 * 1024,
  maxLineLength: 2000,
  displayPath: 'long.txt',
})
const ms = Math.round(performance.now() - started)
const lines = page.split('\n')
const { heapUsed, rss } = process.memoryUsage()
process.stdout.write(
  JSON.stringify({ lines: lines.length, first: lines[0], last: lines.at(-1), heapUsed, rss, ms }) + '\n',
)
