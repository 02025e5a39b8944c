import type { Locator, Page } from 'playwright-core';

export interface ShownResponse {
  /** The status code shown under "Server response". */
  status: number;
  /** The response body shown, parsed as JSON. */
  body: unknown;
  /** The "Request URL" Swagger UI shows for the call it made. */
  requestUrl: string;
}

/** One operation's panel in Swagger UI, driven the way a person uses it. */
export class OperationPanel {
  private readonly block: Locator;
  private readonly operationId: string;

  constructor(page: Page, operationId: string) {
    this.operationId = operationId;
    // Swagger UI gives each panel the id `operations-<tag>-<operationId>`.
    this.block = page.locator(`.opblock[id$="-${operationId}"]`);
  }

  /** Expands the (collapsed) panel and presses "Try it out". */
  async tryItOut(): Promise<void> {
    await this.block.locator('.opblock-summary-control').click();
    await this.block.locator('.try-out__btn').click();
    await this.block.locator('.execute').waitFor();
  }

  /** Types into the parameter fields (by name) and the JSON request body, replacing what was there. */
  async fill(parameters: Record<string, string>, body?: unknown): Promise<void> {
    for (const [name, value] of Object.entries(parameters)) {
      const field = this.block.locator(`tr[data-param-name="${name}"] input`);
      await field.waitFor().catch((error: Error) => {
        throw new Error(`Swagger UI shows no "${name}" parameter field for ${this.operationId}: ${error.message}`);
      });
      await field.fill(value);
    }
    if (body !== undefined) await this.block.locator('textarea.body-param__text').fill(JSON.stringify(body));
  }

  /** Presses "Execute" and reads the status and body shown once the response has arrived. */
  async execute(): Promise<ShownResponse> {
    const live = this.block.locator('.live-responses-table');
    const clear = this.block.locator('.btn-clear');
    if (await clear.isVisible()) {
      await clear.click();
      await live.waitFor({ state: 'detached' });
    }
    await this.block.locator('.execute').click();
    await live.waitFor();
    const status = await live.locator('.response .response-col_status').textContent();
    const body = await live.locator('.response-col_description .highlight-code pre').textContent();
    const requestUrl = await this.block.locator('.request-url pre').textContent();
    return { status: Number.parseInt(status ?? '', 10), body: JSON.parse(body ?? ''), requestUrl: requestUrl ?? '' };
  }
}

/**
 * Presses "Authorize" at the top of the page, types `token` into the field of the bearer scheme,
 * authorizes and closes the dialog, as a person does; Swagger UI then sends
 * `Authorization: Bearer <token>` with every operation that names the scheme.
 */
export async function authorize(page: Page, token: string, scheme = 'bearerToken'): Promise<void> {
  await page.locator('.scheme-container .btn.authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  await dialog.waitFor();
  const container = dialog.locator('.auth-container').filter({ hasText: scheme });
  await container.locator('input').fill(token);
  await container.locator('.auth-btn-wrapper .authorize').click();
  // Once authorized, the scheme's box says so and offers "Logout" instead.
  await container.locator('h6', { hasText: 'Authorized' }).waitFor();
  await container.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor();
  await container.locator('.auth-btn-wrapper .btn-done').click();
  await dialog.waitFor({ state: 'detached' });
}
