#!/usr/bin/env node
/**
 * Mutation scores from the checked-in incremental files (each is a complete mutation-testing report), counting every
 * mutant except those on mutation/equivalent.json. `node mutation/score.mjs [--survivors] [--write] [group ...]`:
 * prints the score per file and per package; --survivors lists the undetected mutants that are not on the list;
 * --write puts the table into TESTING.md.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groups } from './groups.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
export const TARGET = 95

const DETECTED = new Set(['Killed', 'Timeout'])
const UNDETECTED = new Set(['Survived', 'NoCoverage'])

const squash = (text) => text.replace(/\s+/g, ' ').trim()

/** The source text a mutant replaced (the report's lines and columns are 1-based, `end` exclusive). */
function originalOf(source, location) {
  const lines = source.split('\n')
  const { start, end } = location
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1)
  const parts = [lines[start.line - 1].slice(start.column - 1)]
  for (let l = start.line; l < end.line - 1; l++) parts.push(lines[l])
  parts.push(lines[end.line - 1].slice(0, end.column - 1))
  return parts.join('\n')
}

export function loadEquivalents() {
  const entries = JSON.parse(readFileSync(join(root, 'mutation/equivalent.json'), 'utf8'))
  for (const [i, e] of entries.entries()) {
    for (const key of ['file', 'line', 'mutator', 'original', 'replacement', 'reason']) {
      if (e[key] === undefined || e[key] === '') throw new Error(`mutation/equivalent.json entry ${i} has no "${key}"`)
    }
  }
  return entries
}

/** Loads one group's report and pairs each equivalent entry with at most one mutant (nearest line wins). */
export function groupResult(name, equivalents) {
  const path = join(root, `mutation/incremental/${name}.json`)
  const report = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : { files: {} }
  const files = []
  const stale = []
  // A critical file with no result has not been run: its group is incomplete, whatever the other files score.
  const missing = groups[name].mutate.filter((file) => report.files[file] === undefined)
  for (const file of groups[name].mutate) {
    const entry = report.files[file]
    if (entry === undefined) continue
    const mutants = entry.mutants.map((m) => ({
      ...m,
      original: squash(originalOf(entry.source, m.location)),
      line: m.location.start.line,
    }))
    const equivalent = new Map()
    for (const e of equivalents.filter((x) => x.file === file)) {
      const candidates = mutants.filter(
        (m) =>
          !equivalent.has(m) &&
          m.mutatorName === e.mutator &&
          squash(m.replacement ?? '') === squash(e.replacement) &&
          m.original === squash(e.original),
      )
      candidates.sort((a, b) => Math.abs(a.line - e.line) - Math.abs(b.line - e.line))
      const match = candidates[0]
      if (match === undefined) stale.push({ ...e, why: 'matches no mutant' })
      else if (DETECTED.has(match.status))
        stale.push({ ...e, why: `mutant is ${match.status} (${file}:${match.line})` })
      else equivalent.set(match, e)
    }
    const count = (pred) => mutants.filter(pred).length
    const detected = count((m) => DETECTED.has(m.status))
    const undetected = count((m) => UNDETECTED.has(m.status) && !equivalent.has(m))
    files.push({
      file,
      detected,
      undetected,
      equivalent: equivalent.size,
      invalid: count((m) => !DETECTED.has(m.status) && !UNDETECTED.has(m.status)),
      survivors: mutants.filter((m) => UNDETECTED.has(m.status) && !equivalent.has(m)),
    })
  }
  return { name, files, stale, missing }
}

const pct = (detected, undetected) => (detected + undetected === 0 ? 100 : (100 * detected) / (detected + undetected))
const fmt = (value) => `${value.toFixed(1)}%`

/**
 * Markdown rows: one per package (group) with its files, and a total; a file with no run is a `not run` row. `below`
 * names the groups under the target or with a file not run.
 */
export function scoreTable(results) {
  const rows = [
    '| package | file | mutants | detected | undetected | equivalent | score |',
    '|---|---|---:|---:|---:|---:|---:|',
  ]
  const all = { detected: 0, undetected: 0, equivalent: 0, total: 0 }
  const below = []
  for (const result of results) {
    const sum = { detected: 0, undetected: 0, equivalent: 0, total: 0 }
    for (const f of result.files) {
      const total = f.detected + f.undetected + f.equivalent
      rows.push(
        `| ${result.name} | ${f.file.split('/').at(-1)} | ${total} | ${f.detected} | ${f.undetected} | ${f.equivalent} | ${fmt(pct(f.detected, f.undetected))} |`,
      )
      sum.detected += f.detected
      sum.undetected += f.undetected
      sum.equivalent += f.equivalent
      sum.total += total
    }
    for (const file of result.missing)
      rows.push(`| ${result.name} | ${file.split('/').at(-1)} | — | — | — | — | not run |`)
    const groupScore = pct(sum.detected, sum.undetected)
    const scope =
      result.missing.length === 0
        ? 'all'
        : `${result.files.length} of ${result.files.length + result.missing.length} files`
    rows.push(
      `| **${result.name}** | ${scope} | ${sum.total} | ${sum.detected} | ${sum.undetected} | ${sum.equivalent} | **${fmt(groupScore)}** |`,
    )
    if (result.missing.length > 0 || groupScore < TARGET) below.push(result.name)
    for (const key of Object.keys(all)) all[key] += sum[key]
  }
  rows.push(
    `| **all** | | ${all.total} | ${all.detected} | ${all.undetected} | ${all.equivalent} | **${fmt(pct(all.detected, all.undetected))}** |`,
  )
  return { table: rows.join('\n'), below }
}

/**
 * Prints the table, the stale equivalent entries and (optionally) the survivors; returns true when a group is below
 * the target or has a file not run.
 */
export function printScores(names, { survivors = false, write = false } = {}) {
  const equivalents = loadEquivalents()
  const results = names.map((name) => groupResult(name, equivalents))
  const { table, below } = scoreTable(results)
  console.log(`\n${table}\n`)
  if (below.length > 0) console.log(`below the ${TARGET}% target or not run in full: ${below.join(', ')}`)
  for (const r of results)
    for (const s of r.stale)
      console.log(
        `stale equivalent entry (${s.why}): ${s.file}:${s.line} ${s.mutator} ${JSON.stringify(s.replacement)}`,
      )
  if (survivors) {
    for (const r of results) {
      for (const f of r.files) {
        for (const m of f.survivors) {
          console.log(
            `${m.status.padEnd(10)} ${f.file}:${m.line} ${m.mutatorName}: ${JSON.stringify(m.original.slice(0, 100))} -> ${JSON.stringify((m.replacement ?? '').slice(0, 100))}`,
          )
        }
      }
    }
  }
  if (write) {
    const path = join(root, 'TESTING.md')
    const text = readFileSync(path, 'utf8')
    const start = '<!-- mutation-scores:start -->'
    const end = '<!-- mutation-scores:end -->'
    const from = text.indexOf(start)
    const to = text.indexOf(end)
    if (from < 0 || to < from) throw new Error(`TESTING.md has no ${start} … ${end} block`)
    writeFileSync(path, `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`)
  }
  return below.length > 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const names = args.filter((a) => !a.startsWith('--'))
  const unknown = names.filter((name) => !(name in groups))
  if (unknown.length > 0) {
    console.error(`unknown mutation group(s): ${unknown.join(', ')}`)
    process.exit(2)
  }
  printScores(names.length > 0 ? names : Object.keys(groups), {
    survivors: args.includes('--survivors'),
    write: args.includes('--write'),
  })
}
