import { createValidationPipe } from '@careen/service';
import { BadRequestException } from '@nestjs/common';
import { DeployCheckDto } from './deploycheck.dto';

const pipe = createValidationPipe();
const validate = (body: unknown) => pipe.transform(body, { type: 'body', metatype: DeployCheckDto });

async function problems(body: unknown): Promise<unknown> {
  try {
    await validate(body);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return ((error as BadRequestException).getResponse() as { details: { fields: unknown } }).details.fields;
  }
  throw new Error('expected the body to be refused');
}

describe('DeployCheckDto', () => {
  it('accepts a deployment policy or a service, with a scope', async () => {
    await expect(
      validate({ deploymentPolicy: 'web', checkHA: true, haGroup: 'line-1' }),
    ).resolves.toBeInstanceOf(DeployCheckDto);
    await expect(
      validate({ service: { url: 'acme.web', version: '1.2.3' }, node: 'edge-1' }),
    ).resolves.toMatchObject({
      service: { url: 'acme.web', version: '1.2.3' },
    });
  });

  it('needs exactly one of deploymentPolicy and service', async () => {
    const exactlyOne = [
      { field: 'deploymentPolicy', problems: ['give exactly one of deploymentPolicy and service'] },
    ];
    await expect(problems({ checkHA: true })).resolves.toEqual(exactlyOne);
    await expect(problems({ deploymentPolicy: 'web', service: { url: 'acme.web' } })).resolves.toEqual(
      exactlyOne,
    );
  });

  it('refuses unknown fields and bad values, naming each', async () => {
    await expect(
      problems({ deploymentPolicy: 'bad name', checkHA: 'yes', extra: 1, service: undefined }),
    ).resolves.toEqual(
      expect.arrayContaining([
        { field: 'deploymentPolicy', problems: [expect.stringContaining('deploymentPolicy must be')] },
        { field: 'checkHA', problems: ['checkHA must be a boolean value'] },
        { field: 'extra', problems: ['property extra should not exist'] },
      ]),
    );
    await expect(problems({ service: { url: 'acme.web', version: 'latest', arch: 'x' } })).resolves.toEqual(
      expect.arrayContaining([
        { field: 'service.version', problems: ['version must be a semantic version such as 1.4.2'] },
        { field: 'service.arch', problems: ['property arch should not exist'] },
      ]),
    );
  });
});
