/**
 * Generated documents for the search bench: deterministic (a seeded generator), words drawn with a
 * Zipf-like skew from a made-up vocabulary (so frequent and rare words exist as in real text), a
 * few CJK sentences, and two planted words whose document counts are known:
 *
 * - COMMON_WORD in every 10th document (10 %), in the text;
 * - RARE_WORD in one document of RARE_EVERY, in the text.
 *
 * Neither planted word occurs inside a vocabulary word: the index matches any part of a word.
 */

export const COMMON_WORD = 'meridian';
export const RARE_WORD = 'quokkaville';
export const COMMON_EVERY = 10;
export const RARE_EVERY = 5000;

const CJK_SENTENCES = [
  '机器学习模型需要大量训练数据',
  '会议记录已经上传到共享文件夹',
  '東京の事務所は来月移転します',
  '데이터베이스 백업은 매일 실행됩니다',
  '产品路线图将在下周评审',
];

const SYLLABLES =
  'ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zi zo'.split(
    ' ',
  );

/** mulberry32: small, fast, good enough to make text. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const syllables = 1 + Math.floor(random() * 4);
    let word = '';
    for (let i = 0; i < syllables; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    if (!word.includes(COMMON_WORD) && !word.includes(RARE_WORD)) words.add(word);
  }
  return [...words];
}

export interface GeneratedDocument {
  title: string;
  text: string;
}

/**
 * Document `i` of a corpus: a title of 3–6 words and `words` words of text in sentences. Without
 * `planted`, no planted word and no CJK sentence: the passages use that, so the planted words' counts
 * stay those of the documents.
 */
export function corpus(words = 150, seed = 12, planted = true): (i: number) => GeneratedDocument {
  const vocab = vocabulary(20_000, generator(seed));
  return (i) => {
    const random = generator(seed * 1_000_003 + i);
    // Zipf-like: a low index (a frequent word) much more often than a high one.
    const word = () => vocab[Math.floor(vocab.length * random() ** 3)];
    const titleWords = Array.from({ length: 3 + Math.floor(random() * 4) }, word);
    const body: string[] = [];
    let sentence: string[] = [];
    for (let w = 0; w < words; w++) {
      sentence.push(word());
      if (sentence.length >= 8 + Math.floor(random() * 8)) {
        body.push(`${sentence.join(' ')}.`);
        sentence = [];
      }
    }
    if (sentence.length) body.push(`${sentence.join(' ')}.`);
    const at = (k: number) => Math.floor(random() * k);
    if (!planted) return { title: titleWords.join(' '), text: body.join(' ') };
    if (i % COMMON_EVERY === 3) body.splice(at(body.length), 0, `The ${COMMON_WORD} line was checked.`);
    if (i % RARE_EVERY === 17) body.splice(at(body.length), 0, `Shipped to ${RARE_WORD} today.`);
    if (i % 20 === 5) body.splice(at(body.length), 0, `${CJK_SENTENCES[i % CJK_SENTENCES.length]}。`);
    const title = titleWords.join(' ');
    return { title: title[0].toUpperCase() + title.slice(1), text: body.join(' ') };
  };
}

/** Comments on one document in COMMENTED_EVERY (one or two, 40–80 words each) and their words. */
export const COMMENTED_EVERY = 5;
/** An attachment text on one document in ATTACHED_EVERY, of ATTACHMENT_CHARS characters. */
export const ATTACHED_EVERY = 20;
export const ATTACHMENT_CHARS = 20_000;

export interface GeneratedPassages {
  comments: string[];
  attachment: string | null;
}

/**
 * The comment and attachment texts of document `i`: words of the same vocabulary and skew as the
 * documents (so the queries' common words occur in them as they do in text of that length), none
 * of the planted words. Deterministic like the documents.
 */
export function passages(seed = 12): (i: number) => GeneratedPassages {
  const comment = corpus(80, seed, false);
  // ~6 characters a word: 4,000 words fill the 20,000 characters.
  const attachment = corpus(4_000, seed, false);
  return (i) => {
    // Indexes of their own (far above any document's), so no passage repeats its document's words.
    const comments =
      i % COMMENTED_EVERY === 1
        ? Array.from({ length: 1 + (i % 2) }, (_, k) => {
            const words = comment(1_000_000_000 + i * 2 + k).text.split(' ');
            return words.slice(0, 40 + ((i * 7 + k * 13) % 41)).join(' ');
          })
        : [];
    const attached = i % ATTACHED_EVERY === 7 ? attachment(2_000_000_000 + i).text.slice(0, ATTACHMENT_CHARS) : null;
    return { comments, attachment: attached };
  };
}
