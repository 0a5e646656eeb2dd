/**
 * A workbook target with weekly approvals over the reference server, for the approval stories: its world, a sync
 * at a fixed clock, the Activities and Approvals tabs as they stand, and a cell by column name.
 */
import { silentReporter } from '../../src/cli/reporter.ts'
import { runSync } from '../../src/engine/sync.ts'
import type { CellValue, TabData } from '../../src/sheets/port.ts'
import { startEngineFixture, type EngineFixture } from './fixture.ts'

// A Thursday of 2026-W46: the window's 14 days reach back into 2026-W44; the activities lie in W45 and W46.
export const now = () => new Date('2026-11-12T11:00:00Z')

export function startApprovalsWorld(users: number): Promise<EngineFixture> {
  return startEngineFixture({ users, days: 10, startDate: '2026-11-02' }, { window: { days: 14 }, approvals: { period: 'week' } })
}

export function approvalsStory(world: () => EngineFixture) {
  const sync = () =>
    runSync(world().target, {
      client: world().client,
      spreadsheet: world().spreadsheet(),
      stateDir: world().stateDir,
      reporter: silentReporter,
      now,
    })
  async function tabs(): Promise<{ activities: TabData; approvals: TabData }> {
    const snapshot = await world().spreadsheet().read(['Activities', 'Approvals'])
    return { activities: snapshot.tabs['Activities']!, approvals: snapshot.tabs['Approvals']! }
  }
  return { sync, tabs }
}

export const cell = (tab: TabData, row: CellValue[] | undefined, name: string) => row?.[tab.header.indexOf(name)]
