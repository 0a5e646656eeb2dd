/**
 * What a fuzz run reports per backend: six figures that must each be 0 (seven in a workbook), and the details
 * that say what was judged and, when a figure is not 0, which rows and why. `fuzz-judge.ts` measures them; the
 * e2e test reads the printed lines, so their wording is part of what it checks.
 */
import type { Backend } from './fuzz-rows.ts'

export interface Figures {
  bugExits: number
  invalidWithoutStatus: number
  writesFromInvalid: number
  replaced: number
  /** Server writes into approved weeks (an approved activity written, or one created there). */
  writesIntoApproved?: number
  /** Rows of approved weeks holding an edit whose Status does not name the approval. */
  unmarkedInApproved?: number
  /** Links, notes and merges off their rows; undefined where they are not checked. */
  misplaced?: number
  details: string[]
}

/** What must be 0 for a backend to pass: the sum of its figures. */
export function figureTotal(figures: Figures): number {
  return (
    figures.bugExits +
    figures.invalidWithoutStatus +
    figures.writesFromInvalid +
    figures.replaced +
    (figures.writesIntoApproved ?? 0) +
    (figures.unmarkedInApproved ?? 0) +
    (figures.misplaced ?? 0)
  )
}

/** A backend's figures as printed: a heading with the seed, rows and seconds, a line per figure, then the details. */
export function reportText(backend: Backend, seed: number, rowCount: number, seconds: number, figures: Figures): string {
  return [
    `${backend} (seed ${seed}, ${rowCount} rows, ${seconds} s):`,
    `  exits whose output says "bug": ${figures.bugExits}`,
    `  invalid rows without a Status: ${figures.invalidWithoutStatus}`,
    `  server writes from invalid rows: ${figures.writesFromInvalid}`,
    `  rows whose content was replaced: ${figures.replaced}`,
    `  server writes into approved weeks: ${figures.writesIntoApproved ?? 'not checked'}`,
    `  rows of approved weeks edited without a Status naming the approval: ${figures.unmarkedInApproved ?? 'not checked'}`,
    `  links, notes and merged cells off their rows: ${figures.misplaced ?? 'not checked (the Sheets fake has none)'}`,
    ...figures.details.map((d) => `  · ${d}`),
    '',
  ].join('\n')
}
