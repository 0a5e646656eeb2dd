/**
 * More concurrent-manager trials than the test suite runs, with every finding printed:
 *   npx node test/engine/concurrent-manager.run.ts google 10 20     (backend, worlds, trials per world)
 *   npx node test/engine/concurrent-manager.run.ts google 10 20 160 (and days of activities: about 1,000 rows)
 *   npx node test/engine/concurrent-manager.run.ts google 10 20 - approvals (a target with an approved week)
 */
import { trials, type Backend } from './concurrent-manager.ts'
const backend = (process.argv[2] ?? 'workbook') as Backend
const seeds = Number(process.argv[3] ?? 2)
const per = Number(process.argv[4] ?? 10)
const days = process.argv[5] === undefined || process.argv[5] === '-' ? undefined : Number(process.argv[5])
const approvals = process.argv[6] === 'approvals'
let bad = 0
let held = 0
const started = Date.now()
for (let s = 1; s <= seeds; s++) {
  const found = await trials(backend, s, per, days, approvals)
  found.forEach((f, i) => {
    held += f.editsInApproved
    const problems = [...f.misplaced, ...f.lost, ...f.wronglyRemoved, ...f.inconsistent, ...f.sentFromApproved, ...f.unmarkedInApproved]
    if (problems.length || f.lostInTheSameInstant.length) {
      bad++
      console.log(
        `seed ${s} trial ${i}:`,
        JSON.stringify({
          misplaced: f.misplaced,
          lost: f.lost,
          gap: f.lostInTheSameInstant,
          removed: f.wronglyRemoved,
          inconsistent: f.inconsistent,
          sentFromApproved: f.sentFromApproved,
          unmarkedInApproved: f.unmarkedInApproved,
        }),
        '\n   ',
        f.story.join(' | '),
      )
    }
  })
}
console.log(
  `${backend}${days ? ` (${days} days)` : ''}${approvals ? ` with an approved week (${held} rows holding an edit there, summed over the trials)` : ''}: ${seeds * per} trials, ${bad} with findings, ${((Date.now() - started) / 1000).toFixed(1)} s`,
)
