import { fileURLToPath } from 'node:url'
import { main } from './cli.js'
import { processIo, type Io } from './terminal.js'

/**
 * `pnpm demo`: the chapter's scenario end to end. Runs examples/demo (offline with the scripted model
 * unless DEEPSEEK_API_KEY or BRIDLE_BASE_URL is set), then shows step 2 of that session and verifies
 * every request against its digest.
 */
const config = fileURLToPath(new URL('../../../examples/demo/bridle.yaml', import.meta.url))
const io = processIo()
let sessionId: string | undefined
const watching: Io = {
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
