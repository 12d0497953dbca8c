/** One server-sent event as the front sends it. */
export interface SseEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: string
}

/**
 * Opens `GET url` as an event stream and hands each event to `onEvent` until it returns `true`, the stream ends or
 * `signal` aborts. Resolves the events seen.
 */
export async function readEvents(
  url: string,
  headers: Record<string, string>,
  onEvent: (event: SseEvent) => unknown,
  signal?: AbortSignal,
): Promise<SseEvent[]> {
  const controller = new AbortController()
  signal?.addEventListener('abort', () => controller.abort(), { once: true })
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  if (!response.ok || response.body === null)
    throw new Error(`event stream: HTTP ${response.status} ${await response.text()}`)
  const seen: SseEvent[] = []
  const decoder = new TextDecoder()
  let buffer = ''
  const reader = response.body.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return seen
      buffer += decoder.decode(value, { stream: true })
      let cut: number
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        let id: string | undefined
        let event = 'message'
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith('id:')) id = line.slice(3).trim()
          else if (line.startsWith('event:')) event = line.slice(6).trim()
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
        }
        if (data.length === 0) continue
        const parsed = { id, event, data: data.join('\n') }
        seen.push(parsed)
        if (onEvent(parsed) === true) return seen
      }
    }
  } catch (error) {
    if (signal?.aborted) return seen
    throw error
  } finally {
    controller.abort()
  }
}
