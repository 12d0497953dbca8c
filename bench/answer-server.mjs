// A loopback chat-completions server in its own process, for benchmarks that time a turn by this process's CPU: the
// server's own work (encoding and writing every SSE event) is then not in the samples. The parent sends the answer's
// deltas over IPC once; every request gets them as one streamed answer. Prints the server's URL as its first line.
const mock = await import(new URL('../packages/llm-openai/dist/testing.js', import.meta.url).href)

const deltas = await new Promise((resolve) => process.once('message', resolve))
const server = await mock.startMockServer([], { respond: () => ({ kind: 'sse', events: mock.textEvents(deltas) }) })
process.stdout.write(`${server.url}\n`)
process.once('disconnect', async () => {
  await server.close()
  process.exit(0)
})
