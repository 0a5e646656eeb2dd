/**
 * How tall a row must be for its wrapped texts: neither Excel nor LibreOffice fits row heights when it
 * opens a file, so a row the tool writes carries the height its longest wrapped text needs, estimated by
 * wrapping the text at word boundaries to the column's width. The estimate errs on the tall side: a
 * spare line costs less than a Status hidden under the row below.
 */

/** Points per line of the default font (Calibri 11), the height of a default row. */
export const LINE_HEIGHT = 15
/** Excel's tallest row. */
const MAX_HEIGHT = 409
/** Characters of running text per unit of column width (one unit is the width of a `0`, wider than most letters). */
const CHARACTERS_PER_UNIT = 1.1

/** The lines `text` takes in a column `width` units wide, wrapped at spaces as Excel and LibreOffice do. */
export function wrappedLines(text: string, width: number): number {
  const capacity = Math.max(1, Math.floor(width * CHARACTERS_PER_UNIT))
  let lines = 0
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    let line = 0
    lines++
    for (const word of paragraph.split(' ')) {
      const length = [...word].length
      const needed = line === 0 ? length : line + 1 + length
      if (needed <= capacity) {
        line = needed
        continue
      }
      if (line > 0) lines++
      // A word longer than a line is broken across lines.
      lines += Math.max(0, Math.ceil(length / capacity) - 1)
      line = length % capacity === 0 ? capacity : length % capacity
    }
  }
  return lines
}

/**
 * The row-height rule for a sheet whose wrapped columns (0-based) have these widths: the height of the
 * most lines any of them needs; a text it cannot see keeps the height the row had, if taller.
 */
export function rowHeightFor(
  wrapped: ReadonlyMap<number, number>,
): (texts: ReadonlyArray<string | null | undefined>, current: number | undefined) => number | undefined {
  return (texts, current) => {
    let lines = 1
    let unseen = false
    for (const [column, width] of wrapped) {
      const text = texts[column]
      if (text === null) unseen = true
      else if (text !== undefined && text !== '') lines = Math.max(lines, wrappedLines(text, width))
    }
    const height = lines > 1 ? Math.min(MAX_HEIGHT, lines * LINE_HEIGHT) : undefined
    if (!unseen || current === undefined) return height
    return Math.max(height ?? 0, current)
  }
}
