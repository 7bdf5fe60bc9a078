/** BlockNote content with every kind of block the editor makes, as the document service stores it. */

const t = (text: string, styles: Record<string, unknown> = {}) => ({ type: 'text', text, styles });

export function richBlocks(imageUrl = '/api/v1/attachments/file?url=workspaces%2Fw%2Fdocuments%2Fd%2Fchart.png') {
  return [
    { type: 'heading', props: { level: 1 }, content: [t('Overview')], children: [] },
    {
      type: 'paragraph',
      content: [
        t('Plain, '),
        t('bold', { bold: true }),
        t(', '),
        t('italic', { italic: true }),
        t(', '),
        t('under', { underline: true }),
        t(', '),
        t('gone', { strike: true }),
        t(', '),
        t('x = 1', { code: true }),
        t(' and '),
        t('red', { textColor: 'red' }),
        t(' 1 * 2 _3_ <b>'),
      ],
      children: [],
    },
    {
      type: 'paragraph',
      content: [
        { type: 'link', href: 'https://example.com/a?b=1', content: [t('safe link')] },
        t(' '),
        { type: 'link', href: 'javascript:alert(1)', content: [t('script link')] },
        t(' '),
        { type: 'link', href: 'data:text/html,<script>alert(1)</script>', content: [t('data link')] },
        t(' '),
        { type: 'link', href: 'mailto:ada@example.com', content: [t('mail')] },
        t(' hi '),
        { type: 'mention', props: { user: 'Ada Lovelace', id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' } },
      ],
      children: [],
    },
    { type: 'heading', props: { level: 2 }, content: [t('Lists')], children: [] },
    {
      type: 'bulletListItem',
      content: [t('apples')],
      children: [{ type: 'bulletListItem', content: [t('green')], children: [] }],
    },
    { type: 'bulletListItem', content: [t('pears')], children: [] },
    { type: 'numberedListItem', content: [t('first')], children: [] },
    {
      type: 'numberedListItem',
      content: [t('second')],
      children: [{ type: 'numberedListItem', content: [t('second.a')], children: [] }],
    },
    { type: 'checkListItem', props: { checked: true }, content: [t('done')], children: [] },
    { type: 'checkListItem', props: { checked: false }, content: [t('todo')], children: [] },
    { type: 'heading', props: { level: 3 }, content: [t('Data')], children: [] },
    {
      type: 'table',
      content: {
        type: 'tableContent',
        headerRows: 1,
        rows: [
          { cells: [[t('Name')], [t('Qty')]] },
          { cells: [[t('bolts | nuts')], [t('12')]] },
          {
            cells: [
              { type: 'tableCell', props: {}, content: [t('washers')] },
              { type: 'tableCell', content: [t('7')] },
            ],
          },
        ],
      },
      children: [],
    },
    {
      type: 'codeBlock',
      props: { language: 'typescript' },
      content: [t('const a = `x`;\nconsole.log(a);')],
      children: [],
    },
    { type: 'quote', content: [t('Simplicity is prerequisite for reliability.')], children: [] },
    { type: 'image', props: { url: imageUrl, caption: 'Chart', name: 'chart.png', previewWidth: 320 }, children: [] },
    { type: 'file', props: { url: 'https://files.example.com/report.pdf', name: 'report.pdf' }, children: [] },
    { type: 'video', props: { url: 'javascript:alert(2)', name: 'clip.mp4' }, children: [] },
    { type: 'paragraph', content: [t('中文内容 日本語のテキスト 한국어 텍스트')], children: [] },
    { type: 'paragraph', content: [], children: [] },
  ];
}
