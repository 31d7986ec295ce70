import { describe, expect, it } from 'vitest';
import { sanitiseFileName } from '../../src/files/names.ts';

describe('file names offered for download', () => {
  it.each([
    ['report.pdf', 'pdf', 'report.pdf'],
    ['Report.PDF', 'pdf', 'Report.pdf'],
    ['../../etc/passwd', 'txt', 'passwd.txt'],
    ['..\\..\\windows\\system32\\cmd.exe', 'png', 'cmd.exe.png'],
    ['invoice.pdf.exe', 'pdf', 'invoice.pdf.exe.pdf'],
    ['.htaccess', 'txt', 'htaccess.txt'],
    ['...', 'gif', 'file.gif'],
    [undefined, 'jpg', 'file.jpg'],
    ['', 'mp4', 'file.mp4'],
    ['a\u0000b\u001fc\u007f.txt', 'txt', 'a_b_c_.txt'],
    ['evil\u202etxt.exe', 'png', 'evil_txt.exe.png'],
    ['quo"te<>|:*?.txt', 'txt', 'quo_te______.txt'],
    ['Cafe\u0301.txt', 'txt', 'Caf\u00e9.txt'],
  ])('%j as %s is offered as %j', (original, ext, expected) => {
    expect(sanitiseFileName(original, ext)).toBe(expected);
  });

  it('keeps very long Unicode names to 100 characters, extension included', () => {
    const name = sanitiseFileName(`${'Ж'.repeat(300)}🎉.png`, 'png');
    expect(Array.from(name)).toHaveLength(100);
    expect(name.endsWith('.png')).toBe(true);
    const emoji = sanitiseFileName('🎉'.repeat(200), 'txt');
    expect(Array.from(emoji)).toHaveLength(100);
    expect(emoji).toBe(`${'🎉'.repeat(96)}.txt`);
  });
});
