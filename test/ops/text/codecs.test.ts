import { describe, expect, it } from 'vitest'
import { type TextFormat, textDecode, textEncode } from '../../../src/ops/text/codecs.ts'

const enc = (format: TextFormat, input: string) => textEncode({ input, format }).output
const dec = (format: TextFormat, input: string) => textDecode({ input, format }).output

function refuses(fn: () => unknown, format: string, position: number): void {
  expect(fn).toThrowError(
    expect.objectContaining({ code: 'ERR_INVALID_ENCODING', details: { format, position } }),
  )
}

describe('text url / url_form', () => {
  it('encodes as encodeURIComponent and as the URLSearchParams serializer', () => {
    expect(enc('url', "a b&c=d/é!'()*-._~+")).toBe("a%20b%26c%3Dd%2F%C3%A9!'()*-._~%2B")
    expect(enc('url_form', "a b&c=d/é!'()*-._~+")).toBe('a+b%26c%3Dd%2F%C3%A9%21%27%28%29*-._%7E%2B')
    expect(enc('url', '😀')).toBe('%F0%9F%98%80')
  })

  it('decodes, with + as a space only in form values', () => {
    expect(dec('url', 'a+b%20%E2%82%ac')).toBe('a+b €')
    expect(dec('url_form', 'a+b%2B%26=')).toBe('a b+&=')
    expect(dec('url', 'déjà%20vu')).toBe('déjà vu')
  })

  it('refuses malformed escapes, invalid UTF-8 and lone surrogates with positions', () => {
    refuses(() => dec('url', 'ab%'), 'url', 2)
    refuses(() => dec('url', 'ab%4'), 'url', 2)
    refuses(() => dec('url_form', 'a+%zz'), 'url_form', 2)
    refuses(() => dec('url', 'ok%C3%28'), 'url', 2)
    refuses(() => dec('url', 'x%E2%82'), 'url', 1)
    refuses(() => dec('url', '%ED%A0%80'), 'url', 0) // an encoded surrogate is not UTF-8
    refuses(() => dec('url', 'a\ud800'), 'url', 1)
    refuses(() => enc('url', 'ab\udc00'), 'url', 2)
    refuses(() => enc('url_form', '\ud83d'), 'url_form', 0)
  })
})

describe('text html / xml', () => {
  it('escapes the five special characters', () => {
    expect(enc('html', `<a href="x">Tom & Jerry's</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
    )
    expect(enc('xml', `<a b="c">'&'</a>`)).toBe('&lt;a b=&quot;c&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;')
  })

  it('decodes HTML5 named references, numeric references, and leaves the rest as text', () => {
    expect(dec('html', '&lt;&gt;&amp;&quot;&apos;&#39;&#x27;&#X41;&#65;&#x1F600;')).toBe(`<>&"'''AA😀`)
    expect(dec('html', '&copy;&nbsp;&hellip;&eacute;&NotEqualTilde;&Zfr;&zfr;')).toBe(
      '©\u00a0…é\u2242\u0338\u2128\u{1D537}',
    )
    // legacy names are decoded without ";" too (as an HTML parser reads text content); other names are not
    expect(dec('html', 'AT&T &foo; &amp &;')).toBe('AT&T &foo; & &;')
  })

  it('reads malformed numeric references as an HTML parser does, never refusing them', () => {
    expect(dec('html', 'x&#;')).toBe('x&#;')
    expect(dec('html', 'x&#x;')).toBe('x&#x;')
    expect(dec('html', 'ab&#65 ')).toBe('abA ')
    expect(dec('html', '&#0;&#xD800;&#x110000;&#99999999999999999999999;')).toBe('\uFFFD'.repeat(4))
  })

  it('XML knows only the predefined entities and refuses bare ampersands and non-XML characters', () => {
    expect(dec('xml', '&lt;&gt;&amp;&quot;&apos;&#x1F600;&#10;')).toBe(`<>&"'😀\n`)
    refuses(() => dec('xml', 'a&nbsp;'), 'xml', 1)
    refuses(() => dec('xml', 'AT&T'), 'xml', 2)
    refuses(() => dec('xml', '&#1;'), 'xml', 0)
    refuses(() => dec('xml', '&#xFFFE;'), 'xml', 0)
    refuses(() => dec('xml', 'a&#x110000;'), 'xml', 1)
    refuses(() => dec('xml', '&#99999999999999999999;'), 'xml', 0)
    refuses(() => dec('xml', 'ab\u0001'), 'xml', 2)
    refuses(() => enc('xml', 'a\u0000'), 'xml', 1)
    refuses(() => enc('xml', 'a\ud800'), 'xml', 1)
    refuses(() => enc('html', 'a\udfff'), 'html', 1)
  })
})

describe('text json_string / js_string / unicode_escape', () => {
  it('json_string is JSON.stringify without the quotes', () => {
    expect(enc('json_string', 'a"b\\c\n\u0001é😀\ud800/')).toBe('a\\"b\\\\c\\n\\u0001é😀\\ud800/')
    expect(dec('json_string', 'a\\"b\\\\c\\n\\u0001\\u00e9\\/\\ud83d\\ude00')).toBe('a"b\\c\n\u0001é/😀')
    expect(dec('json_string', '"quoted \\"ok\\""')).toBe('quoted "ok"')
  })

  it('json_string refuses what JSON refuses', () => {
    refuses(() => dec('json_string', 'ab"c'), 'json_string', 2)
    refuses(() => dec('json_string', 'a\\x41'), 'json_string', 1)
    refuses(() => dec('json_string', 'a\\u12g4'), 'json_string', 1)
    refuses(() => dec('json_string', 'a\nb'), 'json_string', 1)
    refuses(() => dec('json_string', 'a\\'), 'json_string', 1)
    refuses(() => dec('json_string', '"abc'), 'json_string', 4)
    refuses(() => dec('json_string', '"a"b'), 'json_string', 3)
  })

  it('js_string escapes for either quote, line separators and lone surrogates', () => {
    expect(enc('js_string', `it's "q" \\ \n\r\t\b\f\v\u0000 1 \u2028\u2029 \u007f é \ud800`)).toBe(
      `it\\'s \\"q\\" \\\\ \\n\\r\\t\\b\\f\\v\\x00 1 \\u2028\\u2029 \\x7f é \\ud800`,
    )
    expect(dec('js_string', `\\x41\\u0042\\u{1F600}\\0\\a\\'"'\\\nz\\\r\nz`)).toBe(`AB😀\0a'"'zz`)
  })

  it('js_string refuses what strict-mode JavaScript refuses', () => {
    refuses(() => dec('js_string', 'a\\1'), 'js_string', 1)
    refuses(() => dec('js_string', '\\08'), 'js_string', 0)
    refuses(() => dec('js_string', 'a\\8'), 'js_string', 1)
    refuses(() => dec('js_string', '\\x4'), 'js_string', 0)
    refuses(() => dec('js_string', '\\u{110000}'), 'js_string', 0)
    refuses(() => dec('js_string', '\\u{}'), 'js_string', 0)
    refuses(() => dec('js_string', 'ab\\'), 'js_string', 2)
    refuses(() => dec('js_string', 'a\nb'), 'js_string', 1)
  })

  it('unicode_escape writes \\uXXXX for non-ASCII (surrogate pairs as two) and \\\\ for backslashes', () => {
    expect(enc('unicode_escape', 'é😀 \\u0041 ok')).toBe('\\u00e9\\ud83d\\ude00 \\\\u0041 ok')
    expect(dec('unicode_escape', '\\u00E9\\u{1F600}\\ud83d\\ude00 \\\\n')).toBe('é😀😀 \\n')
    refuses(() => dec('unicode_escape', 'a\\n'), 'unicode_escape', 1)
    refuses(() => dec('unicode_escape', '\\u12'), 'unicode_escape', 0)
    refuses(() => dec('unicode_escape', 'ab\\'), 'unicode_escape', 2)
  })
})

describe('text hex / binary', () => {
  it('hex is the UTF-8 bytes; decoding ignores whitespace and case', () => {
    expect(enc('hex', 'Aé€😀')).toBe('41c3a9e282acf09f9880')
    expect(dec('hex', '41 C3A9\ne2 82 ac')).toBe('Aé€')
    refuses(() => dec('hex', 'c3a'), 'hex', 2)
    refuses(() => dec('hex', '41 4g'), 'hex', 4)
    refuses(() => dec('hex', '41 c3 28'), 'hex', 3)
    refuses(() => enc('hex', '\ud800'), 'hex', 0)
  })

  it('binary is 8-bit groups; decoding accepts shorter groups and runs of whole bytes', () => {
    expect(enc('binary', 'Aé')).toBe('01000001 11000011 10101001')
    expect(dec('binary', '1000001 1000010')).toBe('AB')
    expect(dec('binary', ' 0100000101000010\n')).toBe('AB')
    refuses(() => dec('binary', '0100 0012'), 'binary', 8)
    refuses(() => dec('binary', '01 010000010'), 'binary', 3)
    refuses(() => dec('binary', '01000001 11000011'), 'binary', 9)
  })
})

describe('text punycode', () => {
  it('encodes and decodes IDNA samples', () => {
    for (const [unicode, ascii] of [
      ['münchen.de', 'xn--mnchen-3ya.de'],
      ['bücher.example', 'xn--bcher-kva.example'],
      ['例え.テスト', 'xn--r8jz45g.xn--zckzah'],
      ['www.example.com', 'www.example.com'],
    ]) {
      expect(enc('punycode', unicode!)).toBe(ascii)
      expect(dec('punycode', ascii!)).toBe(unicode)
    }
    expect(enc('punycode', '例え。テスト')).toBe('xn--r8jz45g.xn--zckzah')
    expect(dec('punycode', 'XN--MNCHEN-3YA.de')).toBe('MüNCHEN.de')
  })

  // RFC 3492 §7.1 sample strings (A, B, C, D, G, J, K, L, M, N, O, P, Q, R)
  const RFC3492: [string, string][] = [
    ['ليهمابتكلموشعربي؟', 'egbpdaj6bu4bxfgehfvwxn'],
    ['他们为什么不说中文', 'ihqwcrb4cv8a8dqg056pqjye'],
    ['他們爲什麽不說中文', 'ihqwctvzc91f659drss3x8bo0yb'],
    ['Pročprostěnemluvíčesky', 'Proprostnemluvesky-uyb24dma41a'],
    ['なぜみんな日本語を話してくれないのか', 'n8jok5ay5dzabd5bym9f0cm5685rrjetr6pdxa'],
    ['PorquénopuedensimplementehablarenEspañol', 'PorqunopuedensimplementehablarenEspaol-fmd56a'],
    ['TạisaohọkhôngthểchỉnóitiếngViệt', 'TisaohkhngthchnitingVit-kjcr8268qyxafd2f1b9g'],
    ['3年B組金八先生', '3B-ww4c5e180e575a65lsy2b'],
    ['安室奈美恵-with-SUPER-MONKEYS', '-with-SUPER-MONKEYS-pc58ag80a8qai00g7n9n'],
    ['Hello-Another-Way-それぞれの場所', 'Hello-Another-Way--fc4qua05auwb3674vfr0b'],
    ['ひとつ屋根の下2', '2-u9tlzr9756bt3uc0v'],
    ['MajiでKoiする5秒前', 'MajiKoi5-783gue6qz075azm5e'],
    ['パフィーdeルンバ', 'de-jg4avhby1noc0d'],
    ['そのスピードで', 'd9juau41awczczp'],
  ]
  it('matches the RFC 3492 §7.1 samples, label by label', () => {
    for (const [unicode, punycode] of RFC3492) {
      expect(enc('punycode', unicode)).toBe(`xn--${punycode}`)
      expect(dec('punycode', `xn--${punycode}`)).toBe(unicode)
    }
  })

  it('refuses invalid labels at their start and lone surrogates', () => {
    refuses(() => dec('punycode', 'www.xn--é.de'), 'punycode', 4)
    refuses(() => dec('punycode', 'a.xn--99999999999999a'), 'punycode', 2)
    refuses(() => enc('punycode', 'ok.a\ud800'), 'punycode', 4)
  })

  it('converts labels of up to 63 code points (DNS) and refuses longer ones with ERR_COMPUTE_LIMIT', () => {
    const label = `${'a'.repeat(50)}😀`
    expect(enc('punycode', `a.${label}`)).toHaveLength(2 + 61)
    expect(dec('punycode', enc('punycode', `a.${label}`))).toBe(`a.${label}`)
    const long = { code: 'ERR_COMPUTE_LIMIT', details: { reason: 'label_length', limit: 63, position: 2 } }
    // too long before encoding (not even tried), and once encoded
    expect(() => enc('punycode', `a.${'é'.repeat(64)}`)).toThrowError(expect.objectContaining(long))
    expect(() => enc('punycode', `a.${'a'.repeat(55)}😀😀`)).toThrowError(expect.objectContaining(long))
    expect(() => dec('punycode', `a.xn--${'a'.repeat(60)}`)).toThrowError(expect.objectContaining(long))
    // ASCII labels are not converted, so not limited
    expect(enc('punycode', 'a'.repeat(100))).toBe('a'.repeat(100))
  })
})

describe('text quoted_printable', () => {
  it('encodes UTF-8 bytes per RFC 2045', () => {
    expect(enc('quoted_printable', 'Grüße = 100%')).toBe('Gr=C3=BC=C3=9Fe =3D 100%')
    expect(enc('quoted_printable', 'a \r\nb\t\nc \rd ')).toBe('a=20\r\nb=09\nc =0Dd=20')
  })

  it('keeps lines within 76 characters with soft breaks', () => {
    const out = enc('quoted_printable', 'a'.repeat(100) + 'é'.repeat(40))
    const lines = out.split('\r\n')
    expect(lines[0]).toBe(`${'a'.repeat(75)}=`)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(76)
    expect(dec('quoted_printable', out)).toBe('a'.repeat(100) + 'é'.repeat(40))
  })

  it('decodes soft breaks, lower-case hex and transport whitespace; refuses bad "=" sequences', () => {
    expect(dec('quoted_printable', 'a=\r\nb=\nc=3d=c3=a9  \r\nz =  \nq')).toBe('abc=é\r\nz q')
    refuses(() => dec('quoted_printable', 'ab=4'), 'quoted_printable', 2)
    refuses(() => dec('quoted_printable', '=ZZ'), 'quoted_printable', 0)
    refuses(() => dec('quoted_printable', 'x=C3'), 'quoted_printable', 1)
  })
})

describe('text rot13', () => {
  it('rotates ASCII letters only, and is its own inverse', () => {
    expect(enc('rot13', 'Hello, World! é')).toBe('Uryyb, Jbeyq! é')
    expect(dec('rot13', 'Uryyb, Jbeyq! é')).toBe('Hello, World! é')
  })
})

describe('text formats', () => {
  it('refuses an unknown format, even one named like an Object property', () => {
    for (const format of ['__proto__', 'constructor', 'toString', 'base36']) {
      expect(() => textEncode({ input: 'x', format: format as TextFormat })).toThrowError(
        expect.objectContaining({ code: 'ERR_VALIDATION' }),
      )
    }
  })
})
