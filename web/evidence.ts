// Evidence files: each uploads as soon as it is chosen, with its state shown; at most three.
import { api } from './common.js';

type UploadPath = '/api/v1/public/uploads' | '/api/v1/external/uploads';

export class EvidenceList {
  private readonly uploaded: string[] = [];

  constructor(
    input: HTMLInputElement,
    private readonly list: HTMLElement,
    private readonly path: UploadPath,
  ) {
    input.addEventListener('change', async () => {
      for (const file of input.files ?? []) await this.add(file);
      input.value = '';
    });
  }

  urls(): string[] {
    return [...this.uploaded];
  }

  private async add(file: File): Promise<void> {
    const item = document.createElement('li');
    this.list.append(item);
    if (this.uploaded.length >= 3) {
      item.className = 'failed';
      item.textContent = `${file.name}: not added — at most 3 files.`;
      return;
    }
    item.textContent = `${file.name}: uploading…`;
    const form = new FormData();
    form.append('file', file);
    const { data, error } = await api.POST(this.path, { body: form as never, bodySerializer: () => form });
    if (data) {
      this.uploaded.push(data.data.url);
      item.textContent = `${file.name}: added ✓`;
      return;
    }
    item.className = 'failed';
    item.textContent = `${file.name}: not added — ${error?.message ?? 'the upload failed'}. Only PDF, PNG, JPEG or WebP files up to 5 MB can be used.`;
  }
}
