// The release rehearsal's plugin author: a stranger scaffolds a plugin package with the installed `bridle new plugin`,
// installs its dependencies from the rehearsal registry, builds and tests it (scripted model), checks it with publint,
// publishes it under a scope of their own, and then, in a fresh app, installs Bridle and the plugin by name, lists it
// in bridle.yaml, runs a turn in which the model calls the plugin's tool, and verifies the session's log.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const THIRD_PARTY_PLUGIN = '@rehearsal-author/bridle-plugin-notes'

/** `helpers`: `run(command, args, options)`, `check(condition, message)`, `step(text)` of the rehearsal. */
export async function rehearseThirdPartyPlugin({ work, consumer, registry, npmrc, run, check, step }) {
  step(`a plugin author scaffolds ${THIRD_PARTY_PLUGIN} with the installed bridle new plugin`)
  const author = join(work, 'author')
  mkdirSync(author)
  await run('npx', ['bridle', 'new', 'plugin', THIRD_PARTY_PLUGIN, '--dir', join(author, 'notes')], { cwd: consumer })
  const plugin = join(author, 'notes')
  writeFileSync(join(plugin, '.npmrc'), npmrc)

  step('the plugin installs from the registry, builds, passes its tests (scripted model) and publint, and publishes')
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: plugin, quiet: true })
  const { out: tested } = await run('npm', ['test'], { cwd: plugin, quiet: true })
  check(
    /(?:#|ℹ) fail 0/.test(tested) && /(?:#|ℹ) pass [1-9]/.test(tested),
    `the scaffolded plugin's tests did not pass:\n${tested}`,
  )
  await run('npx', ['publint', '--strict'], { cwd: plugin })
  await run('npm', ['publish', '--registry', registry.url], { cwd: plugin, quiet: true })
  const packument = await registry.packument(THIRD_PARTY_PLUGIN)
  check(packument.versions?.['0.1.0'] !== undefined, `${THIRD_PARTY_PLUGIN}@0.1.0 is not on the registry`)
  const published = packument.versions['0.1.0']
  check(
    JSON.stringify(Object.keys(published.peerDependencies ?? {}).sort()) ===
      JSON.stringify(['@bridle/llm', '@bridle/system-prompt', '@bridle/tools', 'cordis', 'zod']),
    `${THIRD_PARTY_PLUGIN} was published without its peer dependencies: ${JSON.stringify(published.peerDependencies)}`,
  )
  console.log(`    ${THIRD_PARTY_PLUGIN}@0.1.0 published`)

  step('a fresh app installs bridle and the plugin by name, loads it from bridle.yaml, runs a turn and verifies it')
  const app = join(work, 'plugin-app')
  mkdirSync(app)
  writeFileSync(join(app, '.npmrc'), `registry=${registry.url}\n`)
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'rehearsal-plugin-app', version: '1.0.0', private: true, type: 'module' }, null, 2),
  )
  const peers = published.peerDependencies
  const install = ['bridle', THIRD_PARTY_PLUGIN, ...Object.entries(peers).map(([name, range]) => `${name}@${range}`)]
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...install], { cwd: app, quiet: true })
  writeFileSync(
    join(app, 'bridle.yaml'),
    [
      'plugins:',
      `  - package: "${THIRD_PARTY_PLUGIN}"`,
      '    config: { maxNotes: 3 }',
      'scripted:',
      '  turns:',
      '    - steps:',
      '        - toolCalls: [{ name: add_note, arguments: { text: publish the plugin } }]',
      '        - text: "Noted: {{tool-result}}"',
      '',
    ].join('\n'),
  )
  const { out, err } = await run('npx', ['bridle', 'run', 'Remember to publish the plugin.'], { cwd: app })
  check(out.includes('Noted: noted (1 of 3): publish the plugin'), 'the model did not get the plugin tool’s answer')
  const id = /^bridle: session (\S+)$/m.exec(err)?.[1]
  check(id !== undefined, 'bridle run printed no session id')
  const { out: verified } = await run('npx', ['bridle', 'inspect', id, '--verify'], { cwd: app, quiet: true })
  check(/verification passed: 2 requests match their digests/.test(verified), `inspect --verify:\n${verified}`)
  const header = readFileSync(join(app, '.bridle', 'sessions', `${id}.jsonl`), 'utf8')
  check(header.includes('Keep short notes about the work in'), 'the plugin’s section is not in the logged request')
  console.log(`    session ${id}: the plugin's tool ran, and the log verifies`)
}
