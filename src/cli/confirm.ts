/** The one question the CLI asks on a terminal: shows a plan and waits for an explicit yes. */
import { createInterface } from 'node:readline/promises'

export async function confirmPlan(planText: string, changes: number): Promise<boolean> {
  process.stderr.write(`${planText}\n`)
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const answer = await rl.question(`Apply these ${changes} changes to the server? [y/N] `)
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    rl.close()
  }
}
