// `pnpm demo`: the chapter's scenario end to end. Runs examples/demo/bridle.yaml (offline with the scripted model
// unless DEEPSEEK_API_KEY, ANTHROPIC_API_KEY or BRIDLE_BASE_URL is set), then shows step 2 of that session and
// verifies every request against its digest. It lives here, not in the `bridle` package, because it needs this checkout's example files.
import { fileURLToPath } from 'node:url'
import { main, processIo } from '../../packages/cli/dist/index.js'

const config = fileURLToPath(new URL('./bridle.yaml', import.meta.url))
const io = processIo()
let sessionId
const watching = {
  ...io,
  err: (text) => {
    sessionId = /^bridle: session (\S+)$/m.exec(text)?.[1] ?? sessionId
    io.err(text)
  },
}

io.err('$ bridle run "What is the package name of this project?"\n')
let code = await main(['--config', config, 'run', 'What is the package name of this project?'], watching)
if (code === 0 && sessionId) {
  io.err(`\n$ bridle inspect ${sessionId} --step 2 --verify\n`)
  code = await main(['--config', config, 'inspect', sessionId, '--step', '2', '--verify'], io)
}
process.exit(code)
