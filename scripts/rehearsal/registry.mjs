// A real npm registry for the release rehearsal: verdaccio in this process, on a free loopback port. Bridle's own
// names are served only from what the rehearsal publishes; every other package is proxied from the registry this
// machine's npm is configured with, so a consumer install resolves cordis, zod and the rest as a stranger's would.
// Any other name can be published too (the rehearsal publishes a third-party plugin under its own scope): a name
// published here is served from here, with the upstream's versions of it (if any) beside it.
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { runServer } from 'verdaccio'

export async function startRegistry(dir) {
  mkdirSync(dir, { recursive: true })
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim()
  const own = { access: '$all', publish: '$authenticated' }
  const app = await runServer({
    self_path: dir,
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 1 } },
    uplinks: { upstream: { url: upstream, timeout: '60s' } },
    packages: { '@bridle/*': own, bridle: own, '**': { ...own, proxy: 'upstream' } },
    web: { enable: false },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
    max_body_size: '50mb',
  })
  const server = await new Promise((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening)).on('error', reject)
  })
  const url = `http://127.0.0.1:${server.address().port}/`
  const user = await fetch(`${url}-/user/org.couchdb.user:rehearsal`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password: 'rehearsal-only-password' }),
  })
  if (!user.ok) throw new Error(`verdaccio refused the rehearsal user: ${user.status} ${await user.text()}`)
  const { token } = await user.json()
  return {
    url,
    upstream,
    token,
    packument: async (name) => (await fetch(`${url}${name.replace('/', '%2f')}`)).json(),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}
