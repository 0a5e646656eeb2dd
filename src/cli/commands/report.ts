/** `timeline-sheets report`: the approved periods of each target as CSV and JSON, from the approvals record alone. */
import path from 'node:path'
import { loadConfig } from '../../config/load.ts'
import { approvalsCsv, approvalsJson, type ReportInput } from '../../core/approvals-report.ts'
import { plural } from '../../core/describe.ts'
import { loadApprovals } from '../../state/approvals-store.ts'
import { writeFileAtomic } from '../../state/atomic-file.ts'
import { stateLocation } from '../../state/target-state.ts'
import type { GlobalOptions } from '../globals.ts'
import { selectTargets } from '../globals.ts'
import { EXIT, type ExitCode } from '../exit-codes.ts'

export interface ReportCommandOptions {
  target?: string
  out: string
}

export async function runReportCommand(globals: GlobalOptions, options: ReportCommandOptions): Promise<ExitCode> {
  const loaded = await loadConfig(globals.config)
  const stateDir = loaded.resolvePath(loaded.config.stateDir)
  const inputs: ReportInput[] = []
  for (const target of selectTargets(loaded.config.targets, options.target)) {
    const record = await loadApprovals(stateLocation(stateDir, target.name).folder, target.name)
    inputs.push({ target: target.name, approvals: [...record.approvals.values()] })
  }
  const csv = path.resolve(options.out, 'approvals.csv')
  const json = path.resolve(options.out, 'approvals.json')
  await writeFileAtomic(csv, approvalsCsv(inputs), { keepOld: false })
  await writeFileAtomic(json, approvalsJson(inputs), { keepOld: false })
  const periods = inputs.reduce((n, i) => n + i.approvals.length, 0)
  process.stdout.write(
    globals.json ? `${JSON.stringify({ csv, json, periods })}\n` : `Wrote ${plural(periods, 'approved period')} to ${csv} and ${json}\n`,
  )
  return EXIT.success
}
