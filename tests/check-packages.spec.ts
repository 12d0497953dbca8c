/**
 * `scripts/check-packages.mjs` (run by `pnpm lint`) on a fixture repository: a package that follows every convention
 * passes, and each rule, broken once, yields exactly its own problem line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { checkPackages } from '../scripts/check-packages.mjs'

const LICENSE = 'MIT License\n\nCopyright (c) Bridle\n'
type Manifest = Record<string, unknown>

/** A publishable package that follows CONTRIBUTING.md, importing cordis and zod. */
function goodManifest(name: string, folder: string): Manifest {
  return {
    name,
    version: '0.0.0',
    description: 'A fixture package.',
    keywords: ['bridle'],
    homepage: `https://github.com/bridle-dev/bridle/tree/main/${folder}#readme`,
    bugs: { url: 'https://github.com/bridle-dev/bridle/issues' },
    license: 'MIT',
    repository: { type: 'git', url: 'git+https://github.com/bridle-dev/bridle.git', directory: folder },
    engines: { node: '>=20.0.0' },
    files: ['dist', 'README.md', 'LICENSE'],
    scripts: { build: 'tsup --config ../../tsup.config.ts' },
    publishConfig: { access: 'public' },
    dependencies: { '@bridle/llm': 'workspace:^', yaml: '2.8.1' },
    peerDependencies: { cordis: '^3.18.1', zod: '^4.6.7' },
    devDependencies: { cordis: '3.18.1', zod: '4.6.7' },
  }
}

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A fixture repository of good packages: `packages/demo` (`@bridle/demo`), the CLI (`bridle`) and a plugin. */
function fixture(): { root: string; write: (path: string, text: string) => void; manifest: (m: Manifest) => void } {
  const root = mkdtempSync(join(tmpdir(), 'bridle-check-packages-'))
  roots.push(root)
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  write('package.json', JSON.stringify({ private: true, devDependencies: { cordis: '3.18.1', zod: '4.6.7' } }))
  write('LICENSE', LICENSE)
  write('.changeset/README.md', '# Changesets\n')
  write('tests/root.spec.ts', '')
  for (const [folder, name] of [
    ['packages/demo', '@bridle/demo'],
    ['packages/cli', 'bridle'],
    ['plugins/extra', '@bridle/plugin-extra'],
  ]) {
    write(`${folder}/package.json`, JSON.stringify(goodManifest(name!, folder!)))
    write(`${folder}/LICENSE`, LICENSE)
    write(`${folder}/src/index.ts`, "import { Context } from 'cordis'\nimport { z } from 'zod'\n")
    write(`${folder}/tests/demo.spec.ts`, '')
    write(`${folder}/README.md`, `# ${name}\n\nSee [the API](#api) and [LICENSE](LICENSE).\n\n## API\n`)
  }
  const manifest = (changes: Manifest) =>
    write(
      'packages/demo/package.json',
      JSON.stringify({ ...goodManifest('@bridle/demo', 'packages/demo'), ...changes }),
    )
  return { root, write, manifest }
}

const demo = 'packages/demo (@bridle/demo)'

describe('check-packages', () => {
  it('passes a repository that follows every convention', () => {
    const { root, write } = fixture()
    write('.changeset/fine.md', '---\n\'@bridle/demo\': minor\n"bridle": patch\n---\n\nFine.\n')
    expect(checkPackages(root)).toEqual([])
  })

  it('lets a README link only what the package ships, or the repository by absolute URL, naming what breaks it', () => {
    const { root, write } = fixture()
    write('docs/guide.md', '# Guide\n')
    write(
      'packages/demo/README.md',
      [
        '# demo',
        '[ok: shipped](./LICENSE) [ok: dist](dist/index.js) [ok: heading](#api) [ok: elsewhere](https://example.com/x)',
        '[ok: in the repository](https://github.com/bridle-dev/bridle/blob/main/docs/guide.md)',
        '[broken: sibling](../other/README.md) ![broken: image](docs/shot.png)',
        '[broken: gone](https://github.com/bridle-dev/bridle/blob/main/docs/gone.md)',
        'See CONTRIBUTING.md and `docs/guide.md` for more.',
        '```sh\ncat docs/guide.md   # code blocks are not links\n```',
      ].join('\n'),
    )
    expect(checkPackages(root)).toEqual([
      `${demo}: README.md links ../other/README.md, which the package does not ship; link https://github.com/bridle-dev/bridle/blob/main/… instead`,
      `${demo}: README.md links docs/shot.png, which the package does not ship; link https://github.com/bridle-dev/bridle/blob/main/… instead`,
      `${demo}: README.md links https://github.com/bridle-dev/bridle/blob/main/docs/gone.md, but the repository has no docs/gone.md`,
      `${demo}: README.md names CONTRIBUTING.md, which the package does not ship; link it in the repository instead`,
      `${demo}: README.md names docs/guide.md, which the package does not ship; link it in the repository instead`,
    ])
  })

  it('names the package whose LICENSE is missing or not the root one', () => {
    const { root, write } = fixture()
    write('packages/demo/LICENSE', 'Apache-2.0\n')
    expect(checkPackages(root)).toEqual([
      `${demo}: LICENSE must be a copy of the root LICENSE (cp LICENSE packages/demo/)`,
    ])
  })

  it('requires the license, the metadata fields and keywords', () => {
    const { root, manifest } = fixture()
    manifest({ license: 'ISC', description: undefined, keywords: ['agent'] })
    expect(checkPackages(root)).toEqual([
      `${demo}: "license" must be "MIT"`,
      `${demo}: "description" is missing`,
      `${demo}: "keywords" must include "bridle"`,
    ])
  })

  it('checks repository.directory, publishConfig and files', () => {
    const { root, manifest } = fixture()
    manifest({
      repository: { directory: 'packages/other' },
      publishConfig: {},
      files: ['dist', 'src'],
    })
    expect(checkPackages(root)).toEqual([
      `${demo}: "repository.directory" must be "packages/demo"`,
      `${demo}: "publishConfig.access" must be "public"`,
      `${demo}: "files" must be ["dist", "README.md", "LICENSE"], not ["dist","src"]`,
    ])
  })

  it('skips the publishing rules for a private package, but not the LICENSE ones', () => {
    const { root, manifest } = fixture()
    manifest({ private: true, files: undefined, license: 'ISC' })
    expect(checkPackages(root)).toEqual([`${demo}: "license" must be "MIT"`])
  })

  it('takes the shared build, optionally followed by more steps, and refuses a build config of its own', () => {
    const { root, manifest, write } = fixture()
    manifest({ scripts: { build: 'tsup --config ../../tsup.config.ts && node bundle-viewer.mjs' } })
    expect(checkPackages(root)).toEqual([])
    manifest({ scripts: { build: 'tsup' } })
    write('packages/demo/tsup.config.ts', '')
    write('packages/demo/tsconfig.build.json', '{}')
    expect(checkPackages(root)).toEqual([
      `${demo}: "scripts.build" must be "tsup --config ../../tsup.config.ts", optionally followed by "&& <more steps>" (the shared build, see CONTRIBUTING.md)`,
      `${demo}: has its own tsup.config.ts; the root tsup.config.ts builds every package`,
      `${demo}: has a tsconfig.build.json; declarations of every package come from scripts/build-types.mjs`,
    ])
  })

  it('wants cordis and zod as peers at the tested version when the sources import them', () => {
    const { root, manifest } = fixture()
    manifest({
      dependencies: { cordis: '3.18.1' },
      peerDependencies: { zod: '^4.0.0' },
      devDependencies: { cordis: '3.18.1', zod: '4.6.7' },
    })
    expect(checkPackages(root)).toEqual([
      `${demo}: "cordis" must be a peerDependency (an app shares one copy), not a dependency`,
      `${demo}: imports cordis: "peerDependencies.cordis" must be "^3.18.1"`,
      `${demo}: imports zod: "peerDependencies.zod" must be "^4.6.7"`,
    ])
  })

  it('does not ask for peers a package does not import', () => {
    const { root, manifest, write } = fixture()
    write('packages/demo/src/index.ts', "export const x = 'from zodiac'\n")
    manifest({ peerDependencies: undefined, devDependencies: undefined })
    expect(checkPackages(root)).toEqual([])
  })

  it('wants workspace:^ for Bridle packages (the CLI is named bridle) and exact versions for the rest', () => {
    const { root, manifest } = fixture()
    manifest({
      dependencies: { '@bridle/llm': '^0.1.0', bridle: 'workspace:*', yaml: '^2.8.1', alias: 'npm:@x/y@1.2.3' },
    })
    expect(checkPackages(root)).toEqual([
      `${demo}: "dependencies.@bridle/llm" must be "workspace:^"`,
      `${demo}: "dependencies.bridle" must be "workspace:^"`,
      `${demo}: "dependencies.yaml" must pin an exact version, not "^2.8.1"`,
    ])
  })

  it('refuses a changeset that names a package the workspace does not have (the CLI is bridle, not @bridle/cli)', () => {
    const { root, write } = fixture()
    write('.changeset/cli.md', "---\n'@bridle/cli': minor\n'@bridle/demo': patch\n---\n\nThe CLI.\n")
    expect(checkPackages(root)).toEqual(['.changeset/cli.md: "@bridle/cli" is not a workspace package'])
  })

  it('refuses test files under another suffix than .spec.ts, outside node_modules', () => {
    const { root, write } = fixture()
    write('packages/demo/tests/old.test.ts', '')
    write('tests/cross.test.mjs', '')
    write('packages/demo/node_modules/dep/index.test.js', '')
    write('packages/demo/tests/types.test-d.ts', '')
    expect(checkPackages(root).sort()).toEqual([
      'packages/demo/tests/old.test.ts: test files end in .spec.ts (vitest runs no other)',
      'tests/cross.test.mjs: test files end in .spec.ts (vitest runs no other)',
    ])
  })
})
