// The layers of decisions/0001-architecture.md, read from the code: ESLint checks each import's direction
// (eslint.config.js); this checks what a rule per file cannot see — cycles — and dynamic import()s too.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../src')
const LAYER: Record<string, number> = { core: 0, errors: 0, http: 1, timeline: 1, sheets: 1, state: 1, config: 1, engine: 2, cli: 3 }

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name))
}

/** Every relative module a file imports, statically or with import(), types included. */
function importsOf(file: string, text: string): string[] {
  const found: string[] = []
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)'(\.{1,2}\/[^']+)'/gm))
    found.push(path.resolve(path.dirname(file), m[1]!))
  return found
}

const layerOf = (file: string) => LAYER[path.relative(SRC, file).split(path.sep)[0]!.replace(/\.ts$/, '')]

function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>()
  for (const f of sourceFiles(SRC)) g.set(f, importsOf(f, readFileSync(f, 'utf8')))
  return g
}

/** The cycles of a graph, each as the path that closes it (depth-first, colours). */
function cyclesOf(g: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const cycles: string[][] = []
  const visit = (n: string) => {
    state.set(n, 'open')
    stack.push(n)
    for (const m of g.get(n) ?? []) {
      if (state.get(m) === 'open') cycles.push([...stack.slice(stack.indexOf(m)), m])
      else if (!state.has(m)) visit(m)
    }
    stack.pop()
    state.set(n, 'done')
  }
  for (const n of g.keys()) if (!state.has(n)) visit(n)
  return cycles
}

describe('the import graph of src', () => {
  const g = graph()
  const rel = (f: string) => path.relative(SRC, f)

  it('finds cycles when there are some (the checker itself)', () => {
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', []],
        ]),
      ),
    ).toEqual([['a', 'b', 'c', 'a']])
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([])
    expect(
      importsOf('/x/src/cli/a.ts', "import type { A } from '../core/a.ts'\nconst b = await import('./b.ts')\nimport './c.ts'"),
    ).toEqual(['/x/src/core/a.ts', '/x/src/cli/b.ts', '/x/src/cli/c.ts'])
  })

  it('has no cycles', () => {
    expect(cyclesOf(g).map((c) => c.map(rel).join(' → '))).toEqual([])
  })

  it('points down: no file imports a higher layer, and nothing outside src', () => {
    const up: string[] = []
    for (const [file, deps] of g) {
      for (const d of deps) {
        if (!d.startsWith(SRC + path.sep)) up.push(`${rel(file)} → ${path.relative(SRC, d)} (outside src)`)
        else if (layerOf(d) === undefined || layerOf(file) === undefined) up.push(`${rel(file)} → ${rel(d)} (folder without a layer)`)
        else if (layerOf(d)! > layerOf(file)!) up.push(`${rel(file)} → ${rel(d)}`)
      }
    }
    expect(up).toEqual([])
  })
})

describe('the size of a module', () => {
  const ROOT = path.resolve(import.meta.dirname, '..')
  // The code people read beside src is held to the same cap; tests are not.
  const BESIDE_SRC = ['counterparts', 'bench', 'scripts']
  // Files still over the cap, by path from the repository root, each held at its size until it is split by concept.
  const STILL_OVER: Record<string, number> = {}

  it('holds no file of src, counterparts, bench or scripts over 600 lines: a module is one concept', () => {
    const files = [SRC, ...BESIDE_SRC.map((folder) => path.join(ROOT, folder))]
      .flatMap(sourceFiles)
      .filter((file) => !file.endsWith('.test.ts'))
    expect(files.some((file) => file.startsWith(path.join(ROOT, 'counterparts') + path.sep))).toBe(true)
    const over: string[] = []
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split('\n').length - 1
      const name = path.relative(ROOT, file).split(path.sep).join('/')
      const allowed = STILL_OVER[name] ?? 600
      if (lines > allowed) over.push(`${name} (${lines} lines)`)
    }
    expect(over).toEqual([])
  })
})
