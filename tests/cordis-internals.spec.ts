/**
 * Only `@bridle/scope` knows cordis internals (the raw lifecycle and its `_hooks`, `filterHooks`, the `symbols`
 * table, the static `Context.filter`-style keys). Every other package dispatches through scope's contained-dispatch
 * and waterfall helpers, so a cordis upgrade is audited in one package.
 */
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { packageDirs, sourceFiles } from './support/doc-references.js'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))

/** What counts as touching cordis internals, with the reason shown when a file does. */
const internals: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\b_hooks\b/, what: 'the lifecycle hook table `_hooks`' },
  { pattern: /\bfilterHooks\b/, what: 'the lifecycle method `filterHooks`' },
  { pattern: /\blifecycleOf\b/, what: 'the raw lifecycle (`lifecycleOf`)' },
  { pattern: /import\s*(type\s*)?\{[^}]*\bsymbols\b[^}]*\}\s*from\s*'cordis'/, what: "cordis's `symbols` table" },
  { pattern: /\bsymbols\.(original|isolate|internal|store|tracker|setup|receiver)\b/, what: 'a cordis symbol' },
  { pattern: /\bContext\.(filter|current|isolate|intercept|internal|origin|static)\b/, what: 'a static cordis key' },
  { pattern: /Symbol\.for\(\s*'cordis/, what: 'a registered cordis symbol' },
]

/** The code of a TypeScript source without its comments (a comment may name what the code must not use). */
function codeOf(source: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source)
  let code = ''
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const comment = kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia
    code += comment ? ' ' : scanner.getTokenText()
  }
  return code
}

/** The internals `source` touches, by reason. */
function internalsTouched(source: string): string[] {
  const code = codeOf(source)
  return internals.filter(({ pattern }) => pattern.test(code)).map(({ what }) => what)
}

describe('cordis internals', () => {
  it('are touched only by @bridle/scope', () => {
    const offenders: string[] = []
    let files = 0
    for (const dir of packageDirs(repoRoot)) {
      if (relative(repoRoot, dir) === join('packages', 'scope')) continue
      for (const file of sourceFiles(join(dir, 'src'))) {
        files++
        for (const what of internalsTouched(readFileSync(file, 'utf8')))
          offenders.push(`${relative(repoRoot, file)}: ${what}`)
      }
    }
    expect(files).toBeGreaterThan(100)
    expect(offenders).toEqual([])
  })

  it('the scan sees each kind of access and ignores comments', () => {
    expect(internalsTouched("const hooks = lifecycle._hooks['x']")).toEqual(['the lifecycle hook table `_hooks`'])
    expect(internalsTouched("import { Context, symbols } from 'cordis'")).toEqual(["cordis's `symbols` table"])
    expect(internalsTouched('const raw = target[symbols.original]')).toEqual(['a cordis symbol'])
    expect(internalsTouched('lifecycle.filterHooks(list, carrier)')).toEqual(['the lifecycle method `filterHooks`'])
    expect(internalsTouched('const l = lifecycleOf(ctx)')).toEqual(['the raw lifecycle (`lifecycleOf`)'])
    expect(internalsTouched('const f = base[Context.filter]')).toEqual(['a static cordis key'])
    expect(internalsTouched("const s = Symbol.for('cordis.tracker')")).toEqual(['a registered cordis symbol'])
    expect(internalsTouched('// upstream keeps listeners in _hooks\nconst x = 1')).toEqual([])
    expect(internalsTouched("await ctx.lifecycle.flush()\nctx.emit(ctx, 'internal/warning', 'x')")).toEqual([])
  })

  it('@bridle/scope itself is where they live', () => {
    const scope = join(repoRoot, 'packages', 'scope', 'src')
    const touched = sourceFiles(scope).filter((file) => internalsTouched(readFileSync(file, 'utf8')).length > 0)
    expect(touched.map((file) => relative(scope, file)).sort()).toEqual([
      'carrier.ts',
      'contained.ts',
      'index.ts',
      'lifecycle.ts',
    ])
  })
})
