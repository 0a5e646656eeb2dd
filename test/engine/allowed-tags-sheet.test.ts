import { describe, expect, it } from 'vitest'
import { allowedTagsFingerprint, allowedTagsToRows, rowsToAllowedTags } from '../../src/core/allowed-tags-sheet.ts'
import type { AllowedTags } from '../../src/timeline/model.ts'

describe('Allowed tags tab', () => {
  const allowed: AllowedTags = {
    everyone: ['Acme, Website', 'Internal, Admin'],
    groups: [
      { appliesTo: ['[CORP\\alice]', '{Design}'], combinations: ['Acme, Logo, Sketches'] },
      { appliesTo: ['{Support}'], combinations: ['Helpdesk', 'Helpdesk, :billable'] },
    ],
  }

  it('round-trips through rows', () => {
    const rows = allowedTagsToRows(allowed)
    expect(rows[0]).toEqual(['everyone', 'Acme, Website'])
    expect(rows[2]).toEqual(['[CORP\\alice], {Design}', 'Acme, Logo, Sketches'])
    expect(rowsToAllowedTags(rows, 0, 1)).toEqual({ ok: true, allowed })
  })

  it('groups rows a manager added anywhere by Applies to, and skips blank rows', () => {
    const read = rowsToAllowedTags([['{Support}', 'Phone'], [], ['everyone', 'Lunch'], ['{Support}', 'Mail'], ['', 'Travel']], 0, 1)
    expect(read).toEqual({
      ok: true,
      allowed: { everyone: ['Lunch', 'Travel'], groups: [{ appliesTo: ['{Support}'], combinations: ['Phone', 'Mail'] }] },
    })
  })

  it('names the row and says what would be right', () => {
    const read = rowsToAllowedTags(
      [
        ['alice', 'Acme'],
        ['{Support}', ''],
      ],
      0,
      1,
    )
    expect(read.ok).toBe(false)
    if (read.ok) return
    expect(read.problems.map((p) => p.message)).toEqual([
      expect.stringContaining('Row 2: Applies to "alice" is not understood; write everyone, users as [DOMAIN\\user]'),
      expect.stringContaining('Row 3: Tags is empty'),
    ])
  })

  it('keeps prefix lines and ",." endings as written, and fingerprints them as the server expands them', () => {
    const rows = [
      ['everyone', 'Project X,'],
      ['everyone', 'Project Y,'],
      ['{Support}', 'Helpdesk'],
      ['everyone', ',Design'],
      ['everyone', ',Development'],
      ['everyone', ',Testing,.'],
    ]
    const read = rowsToAllowedTags(rows, 0, 1)
    expect(read).toEqual({
      ok: true,
      allowed: {
        everyone: ['Project X,', 'Project Y,', ',Design', ',Development', ',Testing,.'],
        groups: [{ appliesTo: ['{Support}'], combinations: ['Helpdesk'] }],
      },
    })
    if (!read.ok) return
    const asTheServerHoldsIt: AllowedTags = {
      everyone: [
        'Project X, Design',
        'Project X, Development',
        'Project X, Testing,.',
        'Project Y, Design',
        'Project Y, Development',
        'Project Y, Testing,.',
      ],
      groups: [{ appliesTo: ['{Support}'], combinations: ['Helpdesk'] }],
    }
    expect(allowedTagsFingerprint(read.allowed)).toBe(allowedTagsFingerprint(asTheServerHoldsIt))
    expect(allowedTagsFingerprint(read.allowed)).not.toBe(
      allowedTagsFingerprint({ ...asTheServerHoldsIt, everyone: asTheServerHoldsIt.everyone.slice(0, 3) }),
    )
  })

  it('names the row of a sub-line whose prefix is not above it among the rows for the same people', () => {
    const read = rowsToAllowedTags(
      [
        ['everyone', 'Project X,'],
        ['{Support}', ',Design'],
        ['everyone', ',Testing'],
      ],
      0,
      1,
    )
    expect(read).toEqual({
      ok: false,
      problems: [
        {
          rowNumber: 3,
          message: expect.stringMatching(
            /^Row 3: Tags ",Design" starts with 1 comma\(s\) but no prefix line .* among the rows for \{Support\}$/,
          ),
        },
      ],
    })
  })
})
