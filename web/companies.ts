// The operators' admin pages: member companies (add one with its first key, shown once; suspend and
// reactivate) and the safelist (identifiers that must never be listed, kept as blind indexes only).
import {
  actionButton,
  api,
  byId,
  clearFieldErrors,
  dayText,
  LABELS,
  labelInSentence,
  labelName,
  onSubmitOnce,
  option,
  showAgain,
  showFieldErrors,
  tell,
} from './common.js';
import { confirmAction } from './confirm.js';

const cell = (text: string) => Object.assign(document.createElement('td'), { textContent: text });
const date = dayText;

export async function loadCompanies(): Promise<void> {
  const status = (byId<HTMLSelectElement>('companies-status').value || undefined) as 'active' | undefined;
  const { data, error } = await api.GET('/api/v1/admin/companies', {
    params: { query: { page: 1, limit: 100, ...(status ? { status } : {}) } },
  });
  if (!data) {
    byId('companies-message').textContent = error?.message ?? 'Could not load the companies.';
    return;
  }
  const { data: companies, meta } = data.data;
  byId('companies-count').textContent =
    `${meta.total} compan${meta.total === 1 ? 'y' : 'ies'}${meta.total > companies.length ? `, the first ${companies.length} shown` : ''}`;
  byId('company-rows').replaceChildren(
    ...companies.map((c) => {
      const tr = document.createElement('tr');
      tr.append(cell(c.businessName), cell(c.status), cell(date(c.createdAt)));
      const actions = document.createElement('td');
      const act = (path: 'suspend' | 'activate', done: string) => async () => {
        const url =
          path === 'suspend' ? '/api/v1/admin/companies/{companyId}/suspend' : '/api/v1/admin/companies/{companyId}/activate';
        const { error: failed } = await api.POST(url, { params: { path: { companyId: c.id } } });
        tell(byId('companies-message'), failed ? failed.message : `${c.businessName} ${done}.`, failed ? 'error' : 'ok');
        await loadCompanies();
      };
      actions.append(
        c.status === 'active'
          ? actionButton('Suspend', `Suspend ${c.businessName}`, async () => {
              const sure = await confirmAction({
                title: `Suspend ${c.businessName}?`,
                body: 'Its API keys and its people stop working at once, until the company is reactivated.',
                confirmLabel: 'Suspend company',
              });
              if (sure) await act('suspend', 'is suspended: its keys and users no longer work')();
            })
          : actionButton('Reactivate', `Reactivate ${c.businessName}`, act('activate', 'is active again')),
      );
      tr.append(actions);
      return tr;
    }),
  );
}

export async function loadSafelist(): Promise<void> {
  const { data, error } = await api.GET('/api/v1/admin/safelist');
  if (!data) {
    byId('safelist-message').textContent = error?.message ?? 'Could not load the safelist.';
    return;
  }
  const entries = data.data.entries;
  byId('safelist-count').textContent = `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`;
  byId('safelist-rows').replaceChildren(
    ...entries.map((entry) => {
      const li = document.createElement('li');
      // The value itself is not kept, only its blind index: the reason is what tells entries apart.
      li.append(
        Object.assign(document.createElement('strong'), { textContent: labelName(entry.label) }),
        ` — ${entry.reason} (added ${date(entry.createdAt)}) `,
        actionButton('Remove', `Remove the ${labelName(entry.label)} entry: ${entry.reason}`, async () => {
          const sure = await confirmAction({
            title: `Remove the ${labelInSentence(entry.label)} entry from the safelist?`,
            body: `“${entry.reason}”: reports may name this identifier again. Only its blind index was kept, so putting it back needs the value typed again.`,
            confirmLabel: 'Remove entry',
          });
          if (!sure) return;
          const { error: failed } = await api.DELETE('/api/v1/admin/safelist/{id}', { params: { path: { id: entry.id } } });
          tell(byId('safelist-message'), failed ? failed.message : 'Entry removed.', failed ? 'error' : 'ok');
          await loadSafelist();
        }),
      );
      return li;
    }),
  );
}

export function initCompanies(): void {
  byId<HTMLFormElement>('companies-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    void loadCompanies();
  });
  // "Add it anyway" answers for the name it was shown for: a name changed asks again.
  byId<HTMLInputElement>('company-name').addEventListener('input', () => {
    byId<HTMLInputElement>('company-duplicate').checked = false;
    byId('company-duplicate-box').hidden = true;
  });
  onSubmitOnce(byId<HTMLFormElement>('company-form'), async (event) => {
    event.preventDefault();
    const duplicate = byId<HTMLInputElement>('company-duplicate');
    const { data, error } = await api.POST('/api/v1/admin/companies', {
      body: { businessName: byId<HTMLInputElement>('company-name').value.trim(), allowDuplicate: duplicate.checked },
    });
    if (!data) {
      // The service's words name the API's flag; here the way out is the box it reveals.
      const taken = (error as { data?: { code?: string } } | undefined)?.data?.code === 'COMPANY_NAME_TAKEN';
      if (taken) byId('company-duplicate-box').hidden = false;
      const said = taken
        ? {
            message: 'A company of this name is already registered.',
            data: {
              errors: [
                {
                  field: 'businessName',
                  message:
                    'A company of this name is already registered. If this is a different company, tick the box below and add it again',
                },
              ],
            },
          }
        : error;
      return showFieldErrors(byId('company-form'), said, byId('company-form-message'));
    }
    duplicate.checked = false;
    byId('company-duplicate-box').hidden = true;
    clearFieldErrors(byId('company-form'));
    byId<HTMLInputElement>('company-name').value = '';
    byId<HTMLInputElement>('company-key').value = data.data.apiKey;
    byId('company-key-box').hidden = false;
    byId('company-form-message').dataset.tone = 'ok';
    byId('company-form-message').textContent =
      `${data.data.company.businessName} added. Copy its first API key now: it is not shown again.`;
    await loadCompanies();
    // Shown before the list is read again (a key shown once must not wait on it), then brought back
    // into sight: the redrawn list above pushed it down.
    showAgain('company-key');
  });

  const label = byId<HTMLSelectElement>('safe-label');
  for (const [value, text] of LABELS) label.append(option(value, text));
  onSubmitOnce(byId<HTMLFormElement>('safelist-form'), async (event) => {
    event.preventDefault();
    const { data, error } = await api.POST('/api/v1/admin/safelist', {
      body: {
        label: label.value as 'phone',
        value: byId<HTMLInputElement>('safe-value').value,
        reason: byId<HTMLTextAreaElement>('safe-reason').value,
      },
    });
    if (!data) return showFieldErrors(byId('safelist-form'), error, byId('safelist-form-message'));
    byId<HTMLInputElement>('safe-value').value = '';
    byId<HTMLTextAreaElement>('safe-reason').value = '';
    const toReview = data.data.reportsToReview;
    const review = toReview.length;
    tell(
      byId('safelist-form-message'),
      review
        ? `Added. ${review} existing report${review === 1 ? '' : 's'} name${review === 1 ? 's' : ''} this identifier and should be reviewed (drafts and reports off the list included, which search does not count):`
        : 'Added. No existing report names this identifier.',
    );
    // Each by what tells it apart: a public report by the reference its filer holds, which the
    // moderation page finds; a member's report by the start of its id.
    byId('safelist-review').replaceChildren(
      ...toReview.map((r) => {
        const name = r.reference ? `Public report ${r.reference}` : `Member report ${r.id.slice(0, 8)}`;
        const standing = r.status === 'draft' ? 'draft' : r.listingStatus === 'exited' ? 'off the list' : r.status;
        return Object.assign(document.createElement('li'), { textContent: `${name} · ${standing}` });
      }),
    );
    await loadSafelist();
  });
}
