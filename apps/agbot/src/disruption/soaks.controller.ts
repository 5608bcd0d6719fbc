import { OrgScoped, OnResource } from '@careen/auth';
import { IdentifierPipe } from '@careen/service';
import { Controller, Get, Param } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { SoakReader } from './soaks';
import { SoakListResponse, SoakStateResponse } from './soaks.response';

/** Members of the org (the orchestrator among them) read which steps still soak. */
@ApiTags('disruption')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@OnResource('disruption')
@Controller('v1/orgs/:org/soaks')
export class SoaksController {
  private readonly reader = new SoakReader();

  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @ApiOperation({
    summary:
      'The nodes covered by an alert gate with a soak whose step is under way, soaking, or failed (halted)',
  })
  @ApiOkResponse({ type: SoakListResponse })
  async list(@Param('org', new IdentifierPipe('org')) org: string): Promise<SoakListResponse> {
    const items = (await this.reader.states(this.dataSource.manager, org)).map((state) =>
      SoakStateResponse.from(state),
    );
    return { items, total: items.length };
  }
}
