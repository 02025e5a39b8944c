import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files made by openssl in a private folder: a CA, certificates it signs, a self-signed expired one. */
export class Certificates {
  readonly dir = mkdtempSync(join(tmpdir(), 'user-service-tls-'));

  /** Paths of a certificate and its key. */
  file(name: string): string {
    return join(this.dir, name);
  }

  /** A CA (`<name>.crt`, `<name>.key`). */
  ca(name: string): { cert: string; key: string } {
    const cert = this.file(`${name}.crt`);
    const key = this.file(`${name}.key`);
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', cert, '-subj', `/CN=${name}`, '-days', '2']);
    return { cert, key };
  }

  /** A certificate for `commonName` signed by `ca`, valid for 127.0.0.1 and localhost (`<name>.crt`, `<name>.key`). */
  signed(name: string, commonName: string, ca: { cert: string; key: string }, clientUse = false): { cert: string; key: string } {
    const cert = this.file(`${name}.crt`);
    const key = this.file(`${name}.key`);
    const request = this.file(`${name}.csr`);
    const extensions = this.file(`${name}.ext`);
    writeFileSync(extensions, clientUse ? 'extendedKeyUsage=clientAuth\n' : 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
    openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', request, '-subj', `/CN=${commonName}`]);
    openssl(['x509', '-req', '-in', request, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-out', cert, '-days', '2', '-extfile', extensions]);
    return { cert, key };
  }

  /** A self-signed certificate that expired on 2020-01-02 (`<name>.crt`, `<name>.key`). */
  expired(name: string): { cert: string; key: string } {
    const cert = this.file(`${name}.crt`);
    const key = this.file(`${name}.key`);
    const request = this.file(`${name}.csr`);
    const config = this.file(`${name}.cnf`);
    const index = this.file(`${name}.index`);
    writeFileSync(index, '');
    writeFileSync(this.file(`${name}.serial`), '01\n');
    writeFileSync(
      config,
      `[ca]\ndefault_ca=x\n[x]\ndatabase=${index}\nserial=${this.file(`${name}.serial`)}\nnew_certs_dir=${this.dir}\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n`,
    );
    openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', request, '-subj', `/CN=${name}`]);
    openssl(['ca', '-batch', '-config', config, '-selfsign', '-keyfile', key, '-in', request, '-out', cert, '-startdate', '20200101000000Z', '-enddate', '20200102000000Z']);
    return { cert, key };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}
