/**
 * The allowed-tags text grammar, as ManicTime's administration page on allowed
 * tags documents it and as the server applies it when a list is posted:
 *
 * - A line ending in `,` is a prefix: it lists nothing itself, and the lines
 *   after it that start with one more comma (`,Design`) go below it. Levels
 *   nest (`Client,` → `,Design,` → `,,Task1`).
 * - Consecutive prefix lines of one depth are alternatives: `Project X,` then
 *   `Project Y,` then `,Design` / `,Testing` give four combinations, each
 *   project with each sub-line, every combination of the first prefix before
 *   those of the next. A line of that depth or shallower ends the prefix; a
 *   prefix line after sub-lines starts a new one.
 * - A line ending in `,.` is a combination users may not append tags to. The
 *   server keeps what follows the prefix as written (`Client, Review,.`).
 *
 * Both sides of the import's lost-update check expand with this one function,
 * so a list that uses prefix lines compares equal to the server's expansion.
 */
export type TagLinesExpansion =
  | { ok: true; combinations: string[] }
  /** `index` is the 0-based index of the line in the given list; `problem` names the line. */
  | { ok: false; index: number; problem: string }

interface Prefix {
  /** The tags of each consecutive prefix line: the alternatives. */
  alternatives: string[][]
  children: Line[]
}

type Line = { kind: 'prefix'; prefix: Prefix } | { kind: 'combination'; tags: string[] } | { kind: 'no-append'; text: string }

/** The combinations `lines` stand for, joined with `", "`, or the first line the grammar cannot place. */
export function expandTagLines(lines: readonly string[]): TagLinesExpansion {
  const root: Prefix = { alternatives: [[]], children: [] }
  // open[d]: the prefix the lines starting with d commas go below.
  const open: Prefix[] = [root]
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim()
    if (line === '') continue
    const depth = /^,*/.exec(line)![0].length
    const rest = line.slice(depth).trim()
    const parent = open[depth]
    if (parent === undefined) {
      return {
        ok: false,
        index,
        problem: `${JSON.stringify(raw)} starts with ${depth} comma(s) but no prefix line (ending in ",") one level up comes before it`,
      }
    }
    if (rest.endsWith(',.')) {
      parent.children.push({ kind: 'no-append', text: rest })
      open.length = depth + 1
      continue
    }
    const isPrefix = rest.endsWith(',')
    const tags = (isPrefix ? rest.slice(0, -1) : rest).split(',').map((tag) => tag.trim())
    if (tags.some((tag) => tag === '')) return { ok: false, index, problem: `${JSON.stringify(raw)} has an empty tag` }
    if (!isPrefix) {
      parent.children.push({ kind: 'combination', tags })
      open.length = depth + 1
      continue
    }
    const last = parent.children[parent.children.length - 1]
    let prefix: Prefix
    if (last?.kind === 'prefix' && last.prefix.children.length === 0) {
      prefix = last.prefix
      prefix.alternatives.push(tags)
    } else {
      prefix = { alternatives: [tags], children: [] }
      parent.children.push({ kind: 'prefix', prefix })
    }
    open.length = depth + 1
    open[depth + 1] = prefix
  }
  const combinations: string[] = []
  emit(root, [], combinations)
  return { ok: true, combinations }
}

function emit(prefix: Prefix, above: readonly string[], out: string[]): void {
  for (const alternative of prefix.alternatives) {
    const tags = [...above, ...alternative]
    for (const child of prefix.children) {
      if (child.kind === 'prefix') emit(child.prefix, tags, out)
      else if (child.kind === 'combination') out.push([...tags, ...child.tags].join(', '))
      else out.push(tags.length === 0 ? child.text : `${tags.join(', ')}, ${child.text}`)
    }
  }
}
