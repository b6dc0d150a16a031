// Reads a list of tuples of string literals out of a vendored Python test module (the conformance vectors
// of passlib and pyca/bcrypt are Python source): `NAME = [` … `]` or `NAME.extend([` … `])`, whose items are
// tuples of adjacent str/bytes literals (Python concatenates them) or of names given in `names`. Anything
// else in the list (a call, an operator, a number) throws: a vector is never skipped silently.

export type PyValue = { kind: 'str'; value: string } | { kind: 'bytes'; value: Buffer }

type Token =
  | { kind: 'punct'; value: string }
  | { kind: 'literal'; value: PyValue }
  | { kind: 'name'; value: string }

const SIMPLE_ESCAPES: Record<string, number> = {
  n: 10,
  r: 13,
  t: 9,
  '\\': 92,
  "'": 39,
  '"': 34,
  a: 7,
  b: 8,
  f: 12,
  v: 11,
}

function decodeLiteral(prefix: string, body: string): PyValue {
  const bytes = prefix.toLowerCase() === 'b'
  const units: number[] = []
  let text = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c !== '\\') {
      if (bytes) units.push(c.charCodeAt(0))
      else text += c
      continue
    }
    const e = body[++i]!
    let code: number
    if (e in SIMPLE_ESCAPES) code = SIMPLE_ESCAPES[e]!
    else if (e === 'x') {
      code = Number.parseInt(body.slice(i + 1, i + 3), 16)
      i += 2
    } else if (/[0-7]/.test(e)) {
      const digits = /^[0-7]{1,3}/.exec(body.slice(i))![0]
      code = Number.parseInt(digits, 8)
      i += digits.length - 1
    } else if (e === 'u' && !bytes) {
      code = Number.parseInt(body.slice(i + 1, i + 5), 16)
      i += 4
    } else throw new Error(`unsupported escape \\${e} in a Python literal`)
    if (Number.isNaN(code)) throw new Error('malformed escape in a Python literal')
    if (bytes) units.push(code)
    else text += String.fromCharCode(code)
  }
  return bytes ? { kind: 'bytes', value: Buffer.from(units) } : { kind: 'str', value: text }
}

function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  const re =
    /\s+|#[^\n]*|([bBuU]?)(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)')|([A-Za-z_][A-Za-z0-9_]*)|([()[\],])|(.)/gy
  for (let m = re.exec(source); m; m = re.exec(source)) {
    if (m[2] !== undefined || m[3] !== undefined) {
      tokens.push({ kind: 'literal', value: decodeLiteral(m[1] ?? '', m[2] ?? m[3]!) })
    } else if (m[4] !== undefined) tokens.push({ kind: 'name', value: m[4] })
    else if (m[5] !== undefined) tokens.push({ kind: 'punct', value: m[5] })
    else if (m[6] !== undefined)
      throw new Error(`unexpected ${JSON.stringify(m[6])} in a Python list of vectors`)
  }
  return tokens
}

// The source text of the list that follows `opener` (which ends with its "["), up to its closing "]".
function listSource(module: string, opener: string): string {
  const start = module.indexOf(opener)
  if (start < 0) throw new Error(`no ${opener} in the module`)
  let depth = 1
  let i = start + opener.length
  for (; depth > 0; i++) {
    const c = module[i]
    if (c === undefined) throw new Error(`unclosed ${opener}`)
    if (c === '"' || c === "'") {
      const close = /^(["'])(?:[^\\]|\\.)*?\1/s.exec(module.slice(i))
      i += close![0].length - 1
    } else if (c === '#') i = module.indexOf('\n', i)
    else if (c === '[') depth++
    else if (c === ']') depth--
  }
  return module.slice(start + opener.length, i - 1)
}

// The tuples of the list that follows `opener`, each as the values of its items.
export function pythonTuples(
  module: string,
  opener: string,
  names: Record<string, PyValue> = {},
): PyValue[][] {
  const tokens = tokenize(listSource(module, opener))
  const tuples: PyValue[][] = []
  let i = 0
  const expect = (value: string) => {
    const t = tokens[i++]
    if (t?.kind !== 'punct' || t.value !== value)
      throw new Error(`expected "${value}" in a Python list of vectors`)
  }
  while (i < tokens.length) {
    expect('(')
    const items: PyValue[] = []
    while (!(tokens[i]?.kind === 'punct' && tokens[i]!.value === ')')) {
      const t = tokens[i]
      if (t?.kind === 'name') {
        const named = names[t.value]
        if (!named) throw new Error(`unknown name ${t.value} in a Python list of vectors`)
        items.push(named)
        i++
      } else if (t?.kind === 'literal') {
        let value = t.value
        for (i++; tokens[i]?.kind === 'literal'; i++) {
          const next = (tokens[i] as { value: PyValue }).value
          if (next.kind !== value.kind) throw new Error('str and bytes literals concatenated')
          value =
            value.kind === 'str'
              ? { kind: 'str', value: value.value + (next.value as string) }
              : { kind: 'bytes', value: Buffer.concat([value.value, next.value as Buffer]) }
        }
        items.push(value)
      } else throw new Error('expected a literal or a name in a Python tuple')
      if (tokens[i]?.kind === 'punct' && tokens[i]!.value === ',') i++
    }
    expect(')')
    tuples.push(items)
    if (tokens[i]?.kind === 'punct' && tokens[i]!.value === ',') i++
  }
  return tuples
}

// The bytes a value stands for: str as UTF-8 (as passlib and bcrypt encode a str password).
export function pyBytes(value: PyValue): Buffer {
  return value.kind === 'bytes' ? value.value : Buffer.from(value.value, 'utf8')
}

export function pyText(value: PyValue): string {
  if (value.kind !== 'str' && !value.value.every((b) => b < 0x80)) throw new Error('not ASCII')
  return value.kind === 'str' ? value.value : value.value.toString('latin1')
}
