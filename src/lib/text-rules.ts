import { z } from 'zod';

// The one rule every string from outside passes (decision 024). PostgreSQL refuses U+0000 in `text` and
// `jsonb`, and an unpaired UTF-16 surrogate has no UTF-8 form: either would fail only when stored, as a
// 500, after earlier steps of the request had run. Refused at the edge instead, naming the field.

/** Why `value` cannot be text, or null when it can. */
export function textFault(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!value.isWellFormed()) return 'must not contain an unpaired UTF-16 surrogate';
  return null;
}

export interface TextFault {
  /** Keys from the root to the string, e.g. ['data', 'item', 'id']. */
  readonly path: readonly string[];
  readonly message: string;
}

/**
 * The first string in a parsed input (any key or value, at any depth) that breaks the rule. Iterative,
 * so a deeply nested body cannot overflow the stack.
 */
export function findTextFault(input: unknown): TextFault | null {
  // Each entry links to its parent instead of copying the path, so depth costs nothing until a fault.
  interface Entry {
    readonly value: unknown;
    readonly key: string | null;
    readonly parent: Entry | null;
  }
  const pathOf = (entry: Entry, last?: string): string[] => {
    const path = last === undefined ? [] : [last];
    for (let at: Entry | null = entry; at !== null && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Entry[] = [{ value: input, key: null, parent: null }];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const { value } = entry;
    if (typeof value === 'string') {
      const message = textFault(value);
      if (message) return { path: pathOf(entry), message };
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1)
        stack.push({ value: value[i], key: String(i), parent: entry });
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const message = textFault(key);
        if (message) return { path: pathOf(entry, key), message: `key ${message}` };
        stack.push({ value: child, key, parent: entry });
      }
    }
  }
  return null;
}

// C0 and C1 controls and DEL. Line text takes none; block text keeps tab and line breaks.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROLS_BUT_LAYOUT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** True when `value` passes the rule and holds no control character: what `idText` accepts. */
export const isIdText = (value: string): boolean => textFault(value) === null && !CONTROLS.test(value);

const refuse = (pattern: RegExp | null, message: string) => (value: string, ctx: z.RefinementCtx) => {
  const fault = textFault(value);
  if (fault) ctx.addIssue({ code: 'custom', message: fault });
  else if (pattern?.test(value)) ctx.addIssue({ code: 'custom', message });
};

interface Bounds {
  readonly min?: number;
  readonly max: number;
}

interface BlockBounds extends Bounds {
  /** False where the text is kept exactly as written (a post body). */
  readonly trim?: boolean;
}

/** One line of human text (a title, a name, a reason): trimmed, no control characters at all. */
export const lineText = ({ min = 1, max }: Bounds) =>
  z
    .string()
    .trim()
    .min(min)
    .max(max)
    .superRefine(refuse(CONTROLS, 'must be one line without control characters'));

/** Free text that may span lines (a message, a comment, a post): trimmed; tab, CR and LF kept. */
export const blockText = ({ min = 1, max, trim = true }: BlockBounds) =>
  (trim ? z.string().trim() : z.string())
    .min(min)
    .max(max)
    .superRefine(
      refuse(CONTROLS_BUT_LAYOUT, 'must not contain control characters other than tab and line breaks'),
    );

/** An identifier or key someone else chose (a host user id, a device token): as given, no controls. */
export const idText = ({ min = 1, max }: Bounds) =>
  z.string().min(min).max(max).superRefine(refuse(CONTROLS, 'must not contain control characters'));

/** A secret typed by a person (a password): any character the rule allows, nothing trimmed. */
export const secretText = ({ min = 1, max }: Bounds) =>
  z.string().min(min).max(max).superRefine(refuse(null, ''));
