import { checkOutputFile, writeOutputFile } from '../output-file.js'
import { openReader } from '../reader.js'
import { resolveSessionId } from '../session-id.js'
import { RuntimeFailure, UsageError } from '../errors.js'
import { errorText } from '../error-text.js'
import type { Io } from '../terminal.js'

export interface ExportOptions {
  config?: string
  /** `true` for `--otlp` without a URL: the endpoint the `OTEL_EXPORTER_OTLP_*` variables name. */
  otlp?: string | true
  json?: string
  content?: boolean
}

/** The traces URL of `--otlp URL`; a usage error for anything but an http(s) URL. */
async function otlpUrl(value: string | true): Promise<string> {
  const { tracesUrl, tracesUrlFromEnv } = await import('@bridle/otel')
  if (value === true) return tracesUrlFromEnv()
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new UsageError(`--otlp: "${value}" is not a URL (e.g. http://localhost:4318)`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--otlp: "${value}" is not an http: or https: URL`)
  return tracesUrl(value)
}

/** Writes `bytes` to `file` whole or not at all (`writeOutputFile`); `-` is stdout. */
async function writeJson(file: string, bytes: Uint8Array, io: Io): Promise<void> {
  if (file === '-') {
    io.out(`${Buffer.from(bytes).toString('utf8')}\n`)
    return
  }
  await writeOutputFile('--json', file, bytes)
}

/**
 * `bridle export ID --otlp [URL] | --json FILE [--content]`: the stored session's turns, model requests and tool
 * calls as OpenTelemetry GenAI spans with the log's recorded times (`@bridle/otel`'s `sessionLogSpans`, the fold the
 * live plugin uses), sent to an OTLP/HTTP receiver and/or written as one OTLP/JSON request. Contents only with
 * `--content`, redacted of the keys the CLI knows. Exits 1 when the session is missing or the receiver refused.
 */
export async function exportSession(id: string, options: ExportOptions, io: Io): Promise<number> {
  if (options.otlp === undefined && options.json === undefined)
    throw new UsageError('export needs --otlp [URL] or --json FILE (or both)')
  const url = options.otlp === undefined ? undefined : await otlpUrl(options.otlp)
  if (options.json !== undefined && options.json !== '-') checkOutputFile('--json', options.json)
  const reader = await openReader(options.config)
  let events: Awaited<ReturnType<typeof reader.persistence.inspect>>['events']
  try {
    id = await resolveSessionId(reader.persistence, id)
    events = (await reader.persistence.inspect(id)).events
  } finally {
    await reader.close()
  }
  const { otlpJson, sendOtlp, sessionLogSpans } = await import('@bridle/otel')
  // contents are redacted of every secret the process holds (the CLI's keys were added at boot)
  const spans = await sessionLogSpans(id, events, { content: options.content === true })
  const turns = spans.filter((span) => span.parentSpanContext === undefined).length
  const what = `${spans.length} span${spans.length === 1 ? '' : 's'} (${turns} turn${turns === 1 ? '' : 's'}) of session ${id}`
  if (options.json !== undefined) {
    await writeJson(options.json, await otlpJson(spans), io)
    if (options.json !== '-') io.err(`bridle: wrote ${what} to ${options.json}\n`)
  }
  if (url !== undefined) {
    try {
      await sendOtlp(spans, url)
    } catch (error) {
      throw new RuntimeFailure(`could not export to ${url}: ${errorText(error)}`)
    }
    io.err(`bridle: exported ${what} to ${url}\n`)
  }
  return 0
}
