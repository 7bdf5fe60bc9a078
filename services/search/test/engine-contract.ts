import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedDocument, IndexedPassage, SearchEngine, SearchHit, SearchQuery } from '../src/engines/engine.js';

/**
 * The one results contract every search engine is held to (ARCHITECTURE 5.8, issue 12 points 3,
 * 4 and 7): the Postgres engine runs it in `npm test`, the Elasticsearch engine whenever
 * ELASTICSEARCH_URL is set. Each case makes its own workspace, so cases share one engine.
 */
export interface EngineUnderTest {
  engine: SearchEngine;
  cleanup(): Promise<void>;
}

let version = Date.now();
const nextVersion = () => ++version;

function doc(
  workspaceId: string,
  title: string,
  plainText: string,
  over: Partial<IndexedDocument> = {},
): IndexedDocument {
  return {
    id: randomUUID(),
    workspaceId,
    parentId: null,
    title,
    icon: null,
    plainText,
    archived: false,
    createdBy: null,
    updatedAt: Date.parse('2026-01-01T00:00:00Z'),
    version: nextVersion(),
    ...over,
  };
}

function passage(
  document: IndexedDocument,
  kind: IndexedPassage['kind'],
  text: string,
  over: Partial<IndexedPassage> = {},
): IndexedPassage {
  return {
    id: randomUUID(),
    kind,
    documentId: document.id,
    workspaceId: document.workspaceId,
    threadId: kind === 'comment' ? randomUUID() : null,
    text,
    version: nextVersion(),
    ...over,
  };
}

export function describeEngineContract(name: string, makeEngine: () => Promise<EngineUnderTest>): void {
  describe(`search engine contract: ${name}`, () => {
    let under: EngineUnderTest;
    let engine: SearchEngine;
    beforeAll(async () => {
      under = await makeEngine();
      engine = under.engine;
    });
    afterAll(() => under?.cleanup());

    /** A new workspace holding these documents (title, text), indexed. */
    async function workspaceOf(...docs: Array<[string, string]>): Promise<{ workspaceId: string; ids: string[] }> {
      const workspaceId = randomUUID();
      const indexed = docs.map(([title, text]) => doc(workspaceId, title, text));
      await engine.upsert(indexed);
      return { workspaceId, ids: indexed.map((d) => d.id) };
    }
    const search = async (workspaceId: string, query: string, limit = 20) =>
      (await engine.search({ workspaceId, query, limit })).hits;
    /** A page with filters: its hits' ids and the total. */
    const filtered = async (workspaceId: string, query: string, more: Partial<SearchQuery> = {}) => {
      const page = await engine.search({ workspaceId, query, limit: 20, ...more });
      return { ids: idsOf(page.hits), total: page.total, hits: page.hits };
    };
    const idsOf = (hits: SearchHit[]) => hits.map((h) => h.id);

    describe('every language', () => {
      it('finds Chinese text by any run of two or more of its characters, also mixed with Latin', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['机器学习笔记', '深度学习模型需要大量训练数据，GPU 集群每天运行。'],
          ['Weekly report', 'Nothing about machine learning here.'],
        );
        for (const query of ['训练', '训练数据', '练数', '深度学习模型', '学习', 'GPU 训练']) {
          expect(idsOf(await search(workspaceId, query)), query).toEqual([ids[0]]);
        }
        // Two characters that are not next to each other are not a run of the text.
        expect(await search(workspaceId, '训数')).toEqual([]);
        const [hit] = await search(workspaceId, '训练');
        expect(hit.matchField).toBe('content');
        expect(hit.snippet).toContain('<mark>训练</mark>');
      });

      it('finds Japanese and Korean text by a run of its characters', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['会議メモ', '東京の会議室で新しいプロジェクトを始めました。'],
          ['회의록', '오늘 회의에서 검색 기능을 논의했습니다.'],
        );
        expect(idsOf(await search(workspaceId, 'プロジェクト'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, '会議室'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, '검색'))).toEqual([ids[1]]);
        expect(idsOf(await search(workspaceId, '논의'))).toEqual([ids[1]]);
      });

      it('folds accents both ways: café finds cafe and cafe finds café', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['Café menu', 'Our café serves crème brûlée every morning.'],
          ['Opening hours', 'The cafe opens at nine, the bakery at seven.'],
        );
        expect(idsOf(await search(workspaceId, 'cafe')).sort()).toEqual([...ids].sort());
        expect(idsOf(await search(workspaceId, 'café')).sort()).toEqual([...ids].sort());
        expect(idsOf(await search(workspaceId, 'creme brulee'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, 'CRÈME'))).toEqual([ids[0]]);
      });
    });

    describe('every part of a word', () => {
      it('finds a word by its end or middle, and the last query word by its start', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['Subpages and nesting', 'Every page of the wiki can hold its own children.'],
          ['Moving day', 'The office moves to the third floor on Monday.'],
        );
        expect(idsOf(await search(workspaceId, 'pages'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, 'office'))).toEqual([ids[1]]);
        expect(idsOf(await search(workspaceId, 'offic'))).toEqual([ids[1]]);
        expect(idsOf(await search(workspaceId, 'ffic'))).toEqual([ids[1]]);
        expect(idsOf(await search(workspaceId, 'nest'))).toEqual([ids[0]]);
        const [hit] = await search(workspaceId, 'pages');
        expect(hit.matchField).toBe('title');
        expect(hit.snippet).toContain('<mark>pages</mark>');
      });

      it('keeps queries made only of common words', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['Hamlet', 'To be, or not to be, that is the question.'],
          ['Pride', 'A single man in possession of a good fortune and a house.'],
          ['Numbers', '42 17 99'],
        );
        expect(idsOf(await search(workspaceId, 'to be or not to be'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, 'the'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, 'and of'))).toEqual([ids[1]]);
        expect(idsOf(await search(workspaceId, 'a'))).toContain(ids[1]);
      });
    });

    describe('ranking', () => {
      it('puts an exact title first, then title words, then content', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['Planning', 'See the release notes for details; release notes come out every release, notes and all.'],
          ['Release notes for version 2', 'What changed in the second version.'],
          ['Release notes', 'The list of every change.'],
          ['Notes', 'Meeting notes from the release review.'],
          ['Unrelated', 'Nothing here mentions it.'],
        );
        const order = idsOf(await search(workspaceId, 'release notes'));
        expect(order[0]).toBe(ids[2]); // exact title
        expect(order[1]).toBe(ids[1]); // both words in the title
        expect(order.slice(2).sort()).toEqual([ids[0], ids[3]].sort()); // content (and one title word)
        expect(order).not.toContain(ids[4]);
        // A word in the title beats the same word many times in content.
        expect(idsOf(await search(workspaceId, 'planning'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, 'change'))[0]).toBe(ids[2]);
      });

      it('ranks a title with the whole word above one with it inside a longer word', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['Subpages guide', 'How children are shown.'],
          ['Pages', 'The basics.'],
          ['Layout', 'Pages have a width.'],
        );
        expect(idsOf(await search(workspaceId, 'pages'))).toEqual([ids[1], ids[0], ids[2]]);
      });
    });

    describe('rules', () => {
      it('never returns archived documents or another workspace, and honours limit', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['Budget 2024', 'The budget for next year.'],
          ['Budget draft', 'An older budget.'],
          ['Budget notes', 'Budget meeting.'],
        );
        const other = await workspaceOf(['Budget elsewhere', 'Another budget.']);
        await engine.patch([{ id: ids[1], archived: true, version: nextVersion() }]);
        const found = idsOf(await search(workspaceId, 'budget'));
        expect(found.sort()).toEqual([ids[0], ids[2]].sort());
        expect(found).not.toContain(other.ids[0]);
        expect(await search(workspaceId, 'budget', 1)).toHaveLength(1);
        await engine.patch([{ id: ids[1], archived: false, version: nextVersion() }]);
        expect(idsOf(await search(workspaceId, 'budget'))).toHaveLength(3);
      });

      it('answers hostile and empty queries without failing', async () => {
        const { workspaceId, ids } = await workspaceOf(['Quotes', `It's a "quoted" text with & | ! : * ( ) signs.`]);
        for (const query of [
          "'",
          '"',
          '&|!:*()',
          '\\',
          "'; DROP TABLE x; --",
          '',
          '   ',
          '-',
          '-"',
          'or',
          '<mark>',
          'a:*',
        ]) {
          const hits = await search(workspaceId, query);
          expect(Array.isArray(hits), query).toBe(true);
        }
        expect(idsOf(await search(workspaceId, '"quoted text"'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, "it's"))).toEqual([ids[0]]);
        const long = await search(workspaceId, 'quoted '.repeat(1400));
        expect(idsOf(long)).toEqual([ids[0]]);
      });

      it('reads websearch syntax: phrases, -exclusions and or', async () => {
        const { workspaceId, ids } = await workspaceOf(
          ['Orchard', 'Green apples and red pears.'],
          ['Market', 'Red apples only.'],
        );
        expect(idsOf(await search(workspaceId, 'apples -pears'))).toEqual([ids[1]]);
        expect(idsOf(await search(workspaceId, '"green apples"'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, '"red pears"'))).toEqual([ids[0]]);
        expect(idsOf(await search(workspaceId, '"apples red"'))).toEqual([]);
        expect(idsOf(await search(workspaceId, 'green or only')).sort()).toEqual([...ids].sort());
        expect(await search(workspaceId, '-apples')).toEqual([]);
      });

      it('escapes snippets except the marks', async () => {
        const { workspaceId } = await workspaceOf([
          'Tips',
          '<script>alert(1)</script> Tips & tricks for the "office" when x < y, <b>today</b>.',
        ]);
        const [hit] = await search(workspaceId, 'office');
        expect(hit.snippet).toContain('<mark>office</mark>');
        // No markup but the marks, no bare ampersand or quote: safe to put in a page as it is.
        expect(hit.snippet).not.toMatch(/<(?!\/?mark>)/);
        expect(hit.snippet).not.toMatch(/&(?![#a-z0-9]+;)/i);
        expect(hit.snippet).not.toContain('"');
        expect(hit.snippet).toMatch(/tricks/);
        // Also where the match is inside a word (the snippet is marked by the service, not ts_headline).
        const { workspaceId: other } = await workspaceOf(['Layout', 'x < y & "z" on Subpages <i>now</i>']);
        const [inside] = await search(other, 'pages');
        expect(inside.snippet).toContain('<mark>pages</mark>');
        expect(inside.snippet).not.toMatch(/<(?!\/?mark>)/);
        expect(inside.snippet).not.toMatch(/&(?![#a-z0-9]+;)/i);
      });

      it('shows id, title, icon, parent and where it matched', async () => {
        const workspaceId = randomUUID();
        const parent = doc(workspaceId, 'Handbook', 'The root.');
        const child = doc(workspaceId, 'Holidays', 'Vacation policy and public holidays.', {
          parentId: parent.id,
          icon: '🏖️',
        });
        await engine.upsert([parent, child]);
        const [hit] = await search(workspaceId, 'vacation');
        expect(hit).toMatchObject({
          id: child.id,
          title: 'Holidays',
          icon: '🏖️',
          parentId: parent.id,
          matchField: 'content',
        });
        expect((await search(workspaceId, 'holidays'))[0]).toMatchObject({ id: child.id, matchField: 'title' });
      });
    });

    describe('writes', () => {
      it('ignores an older upsert, and a patch changes only its fields', async () => {
        const workspaceId = randomUUID();
        const first = doc(workspaceId, 'Roadmap', 'Quarterly goals.');
        const newer = { ...first, title: 'Strategy', plainText: 'Yearly vision.', version: nextVersion() };
        await engine.upsert([newer]);
        await engine.upsert([first]); // late
        expect(idsOf(await search(workspaceId, 'strategy'))).toEqual([first.id]);
        expect(await search(workspaceId, 'roadmap')).toEqual([]);
        const parentId = randomUUID();
        expect(await engine.patch([{ id: first.id, parentId, version: nextVersion() }])).toEqual([]);
        expect((await search(workspaceId, 'vision'))[0]).toMatchObject({ parentId, title: 'Strategy' });
      });

      it('answers the patches it holds no document for, and not those of removed documents', async () => {
        const { workspaceId, ids } = await workspaceOf(['Budget', 'Costs.'], ['Payroll', 'Salaries.']);
        await engine.remove([ids[1]]);
        const neverIndexed = randomUUID();
        const unknown = await engine.patch([
          { id: ids[0], archived: true, version: nextVersion() },
          { id: neverIndexed, archived: true, version: nextVersion() },
          { id: ids[1], archived: false, version: nextVersion() },
        ]);
        expect(unknown).toEqual([neverIndexed]);
        expect(await search(workspaceId, 'costs')).toEqual([]);
        expect(await search(workspaceId, 'salaries')).toEqual([]);
      });

      it('a patch with a title renames the document for search, unless its text is newer', async () => {
        const workspaceId = randomUUID();
        const d = doc(workspaceId, 'Draft', 'Onboarding checklist for new hires.');
        await engine.upsert([d]);
        await engine.patch([{ id: d.id, title: 'Welcome guide', version: nextVersion() }]);
        expect((await search(workspaceId, 'welcome'))[0]).toMatchObject({
          id: d.id,
          title: 'Welcome guide',
          matchField: 'title',
        });
        expect(idsOf(await search(workspaceId, 'checklist'))).toEqual([d.id]);
        expect(await search(workspaceId, 'draft')).toEqual([]);
        await engine.patch([{ id: d.id, title: 'Stale name', version: d.version }]); // older than the rename
        expect(await search(workspaceId, 'stale')).toEqual([]);
      });

      it('an archive that overtook an update keeps the document archived, with the new text', async () => {
        const workspaceId = randomUUID();
        const d = doc(workspaceId, 'Minutes', 'Old text.');
        await engine.upsert([d]);
        const updateVersion = nextVersion();
        await engine.patch([{ id: d.id, archived: true, version: nextVersion() }]);
        await engine.upsert([{ ...d, plainText: 'Fresh agenda.', archived: false, version: updateVersion }]);
        expect(await search(workspaceId, 'agenda')).toEqual([]);
        await engine.patch([{ id: d.id, archived: false, version: nextVersion() }]);
        expect(idsOf(await search(workspaceId, 'agenda'))).toEqual([d.id]);
      });

      it('removes documents and whole workspaces for good', async () => {
        const { workspaceId, ids } = await workspaceOf(['Invoice', 'Paid in March.'], ['Receipt', 'Paid in April.']);
        await engine.remove([ids[0]]);
        expect(idsOf(await search(workspaceId, 'paid'))).toEqual([ids[1]]);
        await engine.removeWorkspace(workspaceId);
        expect(await search(workspaceId, 'paid')).toEqual([]);
        expect(await engine.listIds({ workspaceId, limit: 10 })).toEqual([]);
      });

      it('names the workspaces of the ids it holds, not of removed or unknown ones', async () => {
        const [first, second] = [randomUUID(), randomUUID()];
        const a = doc(first, 'One', 'First.');
        const b = doc(first, 'Two', 'Second.', { archived: true });
        const c = doc(second, 'Three', 'Third.');
        const gone = doc(second, 'Four', 'Fourth.');
        await engine.upsert([a, b, c, gone]);
        await engine.remove([gone.id]);
        expect(await engine.workspacesOf([])).toEqual([]);
        expect(await engine.workspacesOf([a.id, b.id])).toEqual([first]);
        expect((await engine.workspacesOf([a.id, c.id, randomUUID()])).sort()).toEqual([first, second].sort());
        expect(await engine.workspacesOf([gone.id, randomUUID()])).toEqual([]);
      });

      it('lists indexed ids in ascending order, page by page', async () => {
        const { workspaceId, ids } = await workspaceOf(['One', 'a'], ['Two', 'b'], ['Three', 'c']);
        const sorted = [...ids].sort();
        const first = await engine.listIds({ workspaceId, limit: 2 });
        expect(first).toEqual(sorted.slice(0, 2));
        expect(await engine.listIds({ workspaceId, after: first[1], limit: 2 })).toEqual(sorted.slice(2));
      });
    });

    describe('pages and filters (ARCHITECTURE 5.20)', () => {
      it('pages with offset and tells the total of all matches', async () => {
        const workspaceId = randomUUID();
        const docs = Array.from({ length: 7 }, (_, i) => doc(workspaceId, `Lantern ${i}`, 'A lamp for the harbour.'));
        await engine.upsert(docs);
        const first = await filtered(workspaceId, 'harbour', { limit: 3 });
        const second = await filtered(workspaceId, 'harbour', { limit: 3, offset: 3 });
        const last = await filtered(workspaceId, 'harbour', { limit: 3, offset: 6 });
        expect([first.total, second.total, last.total]).toEqual([7, 7, 7]);
        expect(first.ids).toHaveLength(3);
        expect(second.ids).toHaveLength(3);
        expect(last.ids).toHaveLength(1);
        expect([...first.ids, ...second.ids, ...last.ids].sort()).toEqual(docs.map((d) => d.id).sort());
        expect(await filtered(workspaceId, 'harbour', { offset: 20 })).toMatchObject({ ids: [], total: 7 });
        expect(await filtered(workspaceId, 'nowhere')).toMatchObject({ ids: [], total: 0 });
      });

      it('narrows to a subtree at any depth, following moves, never the parent itself', async () => {
        const workspaceId = randomUUID();
        const root = doc(workspaceId, 'Engineering tide', 'tide tables');
        const child = doc(workspaceId, 'Backend', 'tide gauge', { parentId: root.id });
        const grandchild = doc(workspaceId, 'Database', 'tide records', { parentId: child.id });
        const elsewhere = doc(workspaceId, 'Sales', 'tide of orders');
        await engine.upsert([root, child, grandchild, elsewhere]);
        expect((await filtered(workspaceId, 'tide', { parentId: root.id })).ids.sort()).toEqual(
          [child.id, grandchild.id].sort(),
        );
        expect((await filtered(workspaceId, 'tide', { parentId: child.id })).ids).toEqual([grandchild.id]);
        await engine.patch([{ id: child.id, parentId: elsewhere.id, version: nextVersion() }]);
        expect((await filtered(workspaceId, 'tide', { parentId: root.id })).ids).toEqual([]);
        const moved = await filtered(workspaceId, 'tide', { parentId: elsewhere.id });
        expect(moved.ids.sort()).toEqual([child.id, grandchild.id].sort());
        expect(moved.total).toBe(2);
        expect((await filtered(workspaceId, 'tide', { parentId: randomUUID() })).total).toBe(0);
      });

      it('filters by creator and by the time of the last change (both bounds exclusive)', async () => {
        const workspaceId = randomUUID();
        const [ada, bob] = [randomUUID(), randomUUID()];
        const at = (iso: string) => Date.parse(iso);
        const jan = doc(workspaceId, 'January plan', 'compass', {
          createdBy: ada,
          updatedAt: at('2026-01-10T00:00:00Z'),
        });
        const feb = doc(workspaceId, 'February plan', 'compass', {
          createdBy: bob,
          updatedAt: at('2026-02-10T00:00:00Z'),
        });
        const mar = doc(workspaceId, 'March plan', 'compass', {
          createdBy: ada,
          updatedAt: at('2026-03-10T00:00:00Z'),
        });
        await engine.upsert([jan, feb, mar]);
        expect((await filtered(workspaceId, 'compass', { authorId: ada })).ids.sort()).toEqual([jan.id, mar.id].sort());
        expect(
          (await filtered(workspaceId, 'compass', { updatedAfter: at('2026-01-10T00:00:00Z') })).ids.sort(),
        ).toEqual([feb.id, mar.id].sort());
        const between = await filtered(workspaceId, 'compass', {
          updatedAfter: at('2026-01-01T00:00:00Z'),
          updatedBefore: at('2026-03-10T00:00:00Z'),
          authorId: bob,
        });
        expect(between).toMatchObject({ ids: [feb.id], total: 1 });
        // A later change moves a document into the window.
        await engine.upsert([
          { ...jan, plainText: 'compass rose', version: nextVersion(), updatedAt: at('2026-04-01T00:00:00Z') },
        ]);
        expect((await filtered(workspaceId, 'compass', { updatedAfter: at('2026-03-31T00:00:00Z') })).ids).toEqual([
          jan.id,
        ]);
      });

      it('looks only where `in` says', async () => {
        const workspaceId = randomUUID();
        const titled = doc(workspaceId, 'Anchor points', 'Nothing else.');
        const written = doc(workspaceId, 'Mooring', 'Drop the anchor here.');
        await engine.upsert([titled, written]);
        const comment = passage(titled, 'comment', 'no match here');
        await engine.upsertPassages([comment]);
        expect((await filtered(workspaceId, 'anchor', { in: ['title'] })).ids).toEqual([titled.id]);
        expect((await filtered(workspaceId, 'anchor', { in: ['content'] })).ids).toEqual([written.id]);
        const both = await filtered(workspaceId, 'anchor', { in: ['title', 'content'] });
        expect(both).toMatchObject({ ids: [titled.id, written.id], total: 2 });
        expect((await filtered(workspaceId, 'anchor', { in: ['comments', 'attachments'] })).total).toBe(0);
      });
    });

    describe('comments and attachments (ARCHITECTURE 5.20)', () => {
      it('finds a word of a comment or of an attachment, saying where, one hit per document', async () => {
        const workspaceId = randomUUID();
        const plan = doc(workspaceId, 'Release plan', 'Dates and owners.');
        const contract = doc(workspaceId, 'Vendors', 'The list of vendors.');
        await engine.upsert([plan, contract]);
        const said = passage(plan, 'comment', 'Can we ship the zeppelin build on Friday?');
        const again = passage(plan, 'comment', 'The zeppelin needs one more review.');
        const pdf = passage(
          contract,
          'attachment',
          `${'Terms and conditions. '.repeat(600)} Penalty clause: zeppelin.`,
        );
        await engine.upsertPassages([said, again, pdf]);
        const found = await filtered(workspaceId, 'zeppelin');
        expect(found.total).toBe(2);
        const byId = new Map(found.hits.map((h) => [h.id, h]));
        expect(byId.get(plan.id)).toMatchObject({ matchField: 'comment', title: 'Release plan' });
        expect([said.threadId, again.threadId]).toContain(byId.get(plan.id)?.commentThreadId);
        expect(byId.get(plan.id)?.snippet).toContain('<mark>zeppelin</mark>');
        expect(byId.get(contract.id)).toMatchObject({ matchField: 'attachment', attachmentId: pdf.id });
        // The match is far into the text: the snippet still shows it.
        expect(byId.get(contract.id)?.snippet).toContain('<mark>zeppelin</mark>');
        expect((await filtered(workspaceId, 'zeppelin', { in: ['comments'] })).ids).toEqual([plan.id]);
        expect((await filtered(workspaceId, 'zeppelin', { in: ['attachments'] })).ids).toEqual([contract.id]);
        expect((await filtered(workspaceId, 'zeppelin', { in: ['title', 'content'] })).total).toBe(0);
        // The document's own text ranks above a passage, and makes the hit a content match.
        expect(await filtered(workspaceId, 'owners')).toMatchObject({ ids: [plan.id] });
        expect((await search(workspaceId, 'owners'))[0].matchField).toBe('content');
      });

      it('counts documents found only through a passage also when documents fill the page', async () => {
        const workspaceId = randomUUID();
        const ada = randomUUID();
        const own = doc(workspaceId, 'Heron', 'Notes on heron watching.', { createdBy: ada });
        const commented = doc(workspaceId, 'Birds', 'Nothing here.', { createdBy: ada });
        const filed = doc(workspaceId, 'Files', 'Nothing either.');
        const archived = doc(workspaceId, 'Old', 'Gone.', { archived: true, createdBy: ada });
        await engine.upsert([own, commented, filed, archived]);
        await engine.upsertPassages([
          passage(commented, 'comment', 'A heron by the pond.'),
          passage(filed, 'attachment', 'heron heron heron'),
          passage(archived, 'attachment', 'heron'),
        ]);
        const first = await filtered(workspaceId, 'heron', { limit: 1 });
        expect(first).toMatchObject({ ids: [own.id], total: 3 });
        const rest = await filtered(workspaceId, 'heron', { limit: 2, offset: 1 });
        expect(rest.total).toBe(3);
        expect(rest.ids.sort()).toEqual([commented.id, filed.id].sort());
        expect(await filtered(workspaceId, 'heron', { offset: 3 })).toMatchObject({ ids: [], total: 3 });
        expect(await filtered(workspaceId, 'heron', { limit: 1, authorId: ada })).toMatchObject({
          ids: [own.id],
          total: 2,
        });
        expect(await filtered(workspaceId, 'heron', { limit: 1, in: ['attachments'] })).toMatchObject({
          ids: [filed.id],
          total: 1,
        });
      });

      it('hides passages of archived documents, of other workspaces and outside the filters', async () => {
        const workspaceId = randomUUID();
        const [ada] = [randomUUID()];
        const parent = doc(workspaceId, 'Parent', 'x');
        const shown = doc(workspaceId, 'Shown', 'y', { parentId: parent.id, createdBy: ada });
        const hidden = doc(workspaceId, 'Hidden', 'z', { archived: true });
        const foreign = doc(randomUUID(), 'Foreign', 'w');
        await engine.upsert([parent, shown, hidden, foreign]);
        await engine.upsertPassages([
          passage(shown, 'comment', 'quokka sighting'),
          passage(hidden, 'comment', 'quokka again'),
          passage(foreign, 'attachment', 'quokka abroad'),
          passage(parent, 'attachment', 'quokka at the top'),
        ]);
        expect((await filtered(workspaceId, 'quokka')).ids.sort()).toEqual([parent.id, shown.id].sort());
        expect((await filtered(workspaceId, 'quokka', { parentId: parent.id })).ids).toEqual([shown.id]);
        expect((await filtered(workspaceId, 'quokka', { authorId: ada })).ids).toEqual([shown.id]);
        await engine.patch([{ id: hidden.id, archived: false, version: nextVersion() }]);
        expect((await filtered(workspaceId, 'quokka')).total).toBe(3);
      });

      it('edits replace a passage, older writes are ignored, removals stay removed', async () => {
        const workspaceId = randomUUID();
        const d = doc(workspaceId, 'Notes', 'plain');
        await engine.upsert([d]);
        const first = passage(d, 'comment', 'walrus');
        const edited = { ...first, text: 'narwhal', version: nextVersion() };
        await engine.upsertPassages([edited]);
        await engine.upsertPassages([first]); // late
        expect((await filtered(workspaceId, 'walrus')).total).toBe(0);
        expect((await filtered(workspaceId, 'narwhal')).ids).toEqual([d.id]);

        await engine.removePassages({ ids: [first.id] });
        await engine.upsertPassages([{ ...edited, version: nextVersion() }]); // a redelivered edit
        expect((await filtered(workspaceId, 'narwhal')).total).toBe(0);

        const threadId = randomUUID();
        const inThread = [
          passage(d, 'comment', 'beluga', { threadId }),
          passage(d, 'comment', 'beluga two', { threadId }),
        ];
        await engine.upsertPassages(inThread);
        expect((await filtered(workspaceId, 'beluga')).total).toBe(1);
        expect(await engine.passageWorkspacesOf({ threadIds: [threadId] })).toEqual([workspaceId]);
        await engine.removePassages({ threadIds: [threadId] });
        await engine.upsertPassages([passage(d, 'comment', 'beluga late', { threadId })]);
        expect((await filtered(workspaceId, 'beluga')).total).toBe(0);

        const file = passage(d, 'attachment', 'orca manual');
        await engine.upsertPassages([file]);
        expect(await engine.listPassageIds({ workspaceId, kind: 'attachment', limit: 10 })).toEqual([file.id]);
        await engine.remove([d.id]);
        expect(await engine.listPassageIds({ workspaceId, kind: 'attachment', limit: 10 })).toEqual([]);
        await engine.upsertPassages([passage(d, 'attachment', 'orca again')]);
        expect((await filtered(workspaceId, 'orca')).total).toBe(0);
        expect(await engine.listPassageIds({ workspaceId, kind: 'attachment', limit: 10 })).toEqual([]);
      });
    });
  });
}
