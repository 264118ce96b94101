// Evidence files: each uploads as soon as it is chosen, its bytes counted on a progress bar; at most
// three, and each can be taken off again before the report is saved.
import { attachmentReference, uploadFile } from '../client/src/index.js';
import { waitInWords } from './common.js';

type UploadPath = '/api/v1/public/uploads' | '/api/v1/external/uploads';
const MAX_FILES = 3;
const size = (bytes: number) => (bytes < 1_000_000 ? `${Math.ceil(bytes / 1000)} KB` : `${(bytes / 1_000_000).toFixed(1)} MB`);

export class EvidenceList {
  /** Reference URLs of the files kept, in the order they were added. */
  private uploaded: string[] = [];
  private pending = 0;

  constructor(
    private readonly input: HTMLInputElement,
    private readonly list: HTMLElement,
    private readonly path: UploadPath,
  ) {
    input.addEventListener('change', async () => {
      const files = [...(input.files ?? [])];
      input.value = '';
      this.pending += files.length;
      for (const file of files) {
        await this.add(file);
        this.pending--;
      }
    });
  }

  urls(): string[] {
    return [...this.uploaded];
  }

  /** True while a file is still on its way: saving then would leave it out. */
  busy(): boolean {
    return this.pending > 0;
  }

  /** Starts again from a report's files (their signed download links), or from none. */
  reset(downloadLinks: string[] = []): void {
    this.uploaded = [];
    this.list.replaceChildren();
    downloadLinks.forEach((link, n) => {
      const reference = attachmentReference(link);
      if (!reference) return;
      this.uploaded.push(reference);
      const item = document.createElement('li');
      const name = `Evidence file ${n + 1}`;
      const open = Object.assign(document.createElement('a'), {
        href: link,
        textContent: name,
        target: '_blank',
        rel: 'noopener',
      });
      item.append(open, ' ');
      this.list.append(item);
      this.removable(item, reference, name);
    });
  }

  private removable(item: HTMLElement, reference: string, name: string): void {
    const remove = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'secondary cell-control',
      textContent: 'Remove',
    });
    remove.setAttribute('aria-label', `Remove ${name}`);
    remove.addEventListener('click', () => {
      this.uploaded = this.uploaded.filter((url) => url !== reference);
      this.removeItem(item);
    });
    item.append(remove);
  }

  private async add(file: File): Promise<void> {
    const item = document.createElement('li');
    this.list.append(item);
    if (this.uploaded.length >= MAX_FILES) {
      item.className = 'failed';
      item.textContent = `${file.name}: not added — at most ${MAX_FILES} files. `;
      this.dismissable(item, file.name);
      this.bringIntoSight(item);
      return;
    }
    const label = Object.assign(document.createElement('span'), { textContent: `${file.name}: uploading…` });
    const bar = Object.assign(document.createElement('progress'), { max: file.size || 1, value: 0 });
    bar.setAttribute('aria-label', `Upload of ${file.name}`);
    item.append(label, bar);
    const { data, error } = await uploadFile(location.origin, this.path, file, (sent, total) => {
      bar.max = total;
      bar.value = sent;
      label.textContent = `${file.name}: ${size(sent)} of ${size(total)} sent`;
    });
    bar.remove();
    if (data) {
      this.uploaded.push(data.data.url);
      label.textContent = `${file.name}: added ✓ `;
      this.removable(item, data.data.url, file.name);
      return;
    }
    item.className = 'failed';
    label.textContent = `${file.name}: not added — ${this.whyNotAdded(error)} `;
    this.dismissable(item, file.name);
    this.bringIntoSight(item);
  }

  /**
   * A refusal is said where the person is looking: the list is below the picker, often under the
   * screen's edge (a screen reader hears it, as the list is a live region). Only while they are
   * still at the picker or the list: an upload refused seconds later must not pull the page away
   * from the field they have gone on to type in.
   */
  private bringIntoSight(item: HTMLElement): void {
    const focused = document.activeElement;
    if (focused === this.input || focused === document.body || this.list.contains(focused))
      item.scrollIntoView({ block: 'nearest' });
  }

  /** Why a file was refused, in a sentence: the file's rule only where the file broke it, and once. */
  private whyNotAdded(error: unknown): string {
    const { message, data } = (error ?? {}) as { message?: string; data?: { code?: string } };
    const kind = data?.code;
    // No answer at all: the connection, not the file.
    if (kind === 'NETWORK_ERROR') return "we couldn't reach Redflag. Check your internet connection, then choose the file again.";
    // Not a kind of file we take (told by its contents): the service names the kinds twice over.
    if (kind === 'UNSUPPORTED_MEDIA_TYPE' && /recognised by its contents/i.test(message ?? '')) {
      return 'send a photo or screenshot (PNG, JPEG or WebP) or a PDF.';
    }
    if (kind === 'RATE_LIMITED') {
      // The public form's limit is per connection and hour; the desk's, per person and minute.
      const limit =
        this.path === '/api/v1/public/uploads'
          ? 'we have received several files from your connection in the last hour, which is our limit to stop abuse'
          : 'too many files were sent in the last minute';
      const wait = waitInWords(error);
      if (wait) return `${limit}; please try again in ${wait}.`;
    }
    const said = (message ?? 'the upload failed').replace(/\.$/, '');
    // A refusal of another kind (a role) is not the file's fault; a file too large has its limit in
    // the message already, to the byte's decimal.
    const aboutTheFile = ['VALIDATION_FAILED', 'UNSUPPORTED_MEDIA_TYPE'].includes(kind ?? '');
    const rule = aboutTheFile && !/PDF/.test(said) ? ' Only PDF, PNG, JPEG or WebP files up to 5 MB can be used.' : '';
    return `${said}.${rule}`;
  }

  /** A failed file's line goes when its reader is done with it; the keyboard stays in the list. */
  private dismissable(item: HTMLElement, name: string): void {
    const dismiss = Object.assign(document.createElement('button'), {
      type: 'button',
      className: 'secondary cell-control',
      textContent: 'Dismiss',
    });
    dismiss.setAttribute('aria-label', `Dismiss the message about ${name}`);
    dismiss.addEventListener('click', () => this.removeItem(item));
    item.append(dismiss);
  }

  /** Takes a line off the list and puts the keyboard on the next line's button (or the previous, or the file picker). */
  private removeItem(item: HTMLElement): void {
    // The nearest line with a button, after this one or else before it (a file still uploading has none).
    const lines = [...this.list.children];
    const at = lines.indexOf(item);
    const button = (line: Element) => line.querySelector<HTMLElement>('button');
    const near = lines.slice(at + 1).find(button) ?? lines.slice(0, at).reverse().find(button);
    const next = near ? button(near) : null;
    item.remove();
    (next ?? this.input).focus();
  }
}
