import { loadAssets } from './assets.js'
import { packRequests } from './embedded.js'
import { filePage } from './page.js'
import type { ViewSource } from './source.js'
import type { EmbeddedData } from './types.js'
import { writeWhole } from './write-whole.js'

/** The data an `--html` file carries for session `id`: its session view and every request view, messages once. */
export async function embeddedData(source: ViewSource, id: string): Promise<EmbeddedData> {
  const { session, requests } = await source.wholeSession(id)
  return { session, ...packRequests(requests), generatedAt: Date.now() }
}

/**
 * Writes the viewer of one session as one self-contained HTML file. The file appears whole or not at all
 * (`writeWhole`); a failed write rejects with a `WriteWholeError` naming the file and why.
 */
export async function writeSessionHtml(
  source: ViewSource,
  id: string,
  file: string,
  redact?: (text: string) => string,
): Promise<{ bytes: number; requests: number }> {
  const data = await embeddedData(source, id)
  const html = filePage(await loadAssets(), data, redact)
  await writeWhole(file, html)
  return { bytes: Buffer.byteLength(html), requests: Object.keys(data.requests).length }
}
