/**
 * The state case: the target state of a 100,000-row sheet saved and
 * loaded as a run does it (atomic write with fsync, read and shape check), in
 * this process, with the tool under test's own `src/state/target-state.ts`
 * (`BENCH_TOOL` picks another checkout, so before and after share a run).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { goals, median, table } from '../lib/report.ts'
import { TOOL_ROOT } from '../lib/tool-cli.ts'

interface StateModule {
  /** `base` is a Map since the bases are saved as pairs; an object before. */
  emptyState(target: string): { base: Record<string, string> | Map<string, string> }
  /** Since the bases got a file of their own; before, a run set them in place. */
  applyBaseChanges?(state: unknown, changes: Iterable<readonly [string, string | null]>): void
  /** Since the digests of rows as written (decisions/0013): kept beside the bases, one per row. */
  applyWrittenChanges?(state: unknown, context: string, changes: Iterable<readonly [string, number | null]>): void
  stateLocation(stateDir: string, target: string): { folder: string }
  saveState(location: unknown, state: unknown): Promise<void>
  loadState(location: unknown, target: string): Promise<{ state: { base: Record<string, string> | Map<string, string> } }>
}

export async function stateCase(rows: number, reps: number): Promise<void> {
  const module = (await import(pathToFileURL(path.join(TOOL_ROOT, 'src/state/target-state.ts')).href)) as StateModule
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-state-'))
  try {
    const location = module.stateLocation(dir, 'bench')
    await mkdir(location.folder, { recursive: true })
    const state = module.emptyState('bench')
    // Keys and fingerprints shaped as the tool writes them: `<timeline key>/<entity id>` → 11 base64url characters.
    const keys = Array.from({ length: rows }, (_, i) => `${'0123456789abcdef'.repeat(2)}-${i % 50}/${10_000_000 + i}`)
    // Through the module's own way of changing bases: whatever `base` is, the bench need not know.
    const set = (changes: [string, string][]) => {
      if (module.applyBaseChanges) module.applyBaseChanges(state, changes)
      else for (const [key, fp] of changes) (state.base as Record<string, string>)[key] = fp
    }
    set(keys.map((key, i) => [key, `fp${i}`.padEnd(11, 'x')]))
    // A digest per row where the tool keeps them, 52-bit numbers as the export makes them.
    const digest = (i: number) => Math.floor(((i * 2654435761) % 2 ** 32) * 2 ** 20 + (i % 2 ** 20))
    module.applyWrittenChanges?.(
      state,
      'bench context',
      keys.map((key, i) => [key, digest(i)]),
    )
    const saves: number[] = []
    const quietSaves: number[] = []
    const loads: number[] = []
    // What a run changes in the bases: one of them (a run that changed none is timed apart).
    const change = (rep: number) => {
      set([[keys[rep]!, `changed${rep}`.padEnd(11, 'x')]])
      module.applyWrittenChanges?.(state, 'bench context', [[keys[rep]!, digest(rows + rep)]])
    }
    await module.saveState(location, state)
    for (let rep = 0; rep < reps; rep++) {
      change(rep)
      let t = performance.now()
      await module.saveState(location, state)
      saves.push(performance.now() - t)
      t = performance.now()
      await module.saveState(location, state)
      quietSaves.push(performance.now() - t)
      t = performance.now()
      const loaded = await module.loadState(location, 'bench')
      loads.push(performance.now() - t)
      const base = loaded.state.base
      // A bench that fills the bases the wrong way would time an empty state.
      if ((base instanceof Map ? base.size : Object.keys(base).length) !== rows)
        throw new Error(`state bench: ${rows} bases saved, others loaded`)
    }
    const save = median(saves)
    const quietSave = median(quietSaves)
    const load = median(loads)
    table(
      `target state at ${rows.toLocaleString('en')} rows${module.applyWrittenChanges ? ', with a digest of each row as written' : ''}: median of ${reps}`,
      ['step', 'ms'],
      [
        ['save, one base changed (atomic, fsync)', Math.round(save)],
        ['save, no base changed', Math.round(quietSave)],
        ['load (read, shape check)', Math.round(load)],
      ],
    )
    goals.push({
      goal: `state load and save ≤ 100 ms at ${rows.toLocaleString('en')} rows`,
      measured: `save ${Math.round(save)} ms (${Math.round(quietSave)} ms with no base changed), load ${Math.round(load)} ms`,
      met: save <= 100 && load <= 100,
    })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
