interface WithAttachments {
  attachments: string[];
}

interface SearchData {
  reports: WithAttachments[];
  publicReports: WithAttachments[];
}

/** A search's `data` with each report's upload ids replaced by signed download links. */
export function withSignedAttachments(body: string, links: (uploadIds: readonly string[]) => string[]): string {
  const data = JSON.parse(body) as SearchData;
  for (const report of [...data.reports, ...data.publicReports]) {
    if (report.attachments.length > 0) report.attachments = links(report.attachments);
  }
  return JSON.stringify(data);
}
