import { ApiProperty } from '@nestjs/swagger';
import { type ServiceEntity } from '../service.entity';

export class ServiceResponse {
  @ApiProperty() org!: string;
  @ApiProperty() id!: string;
  @ApiProperty() url!: string;
  @ApiProperty() version!: string;
  @ApiProperty() arch!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'how the agent runs the service, as published',
  })
  runtime!: Record<string, unknown>;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;

  static from(service: ServiceEntity): ServiceResponse {
    return {
      org: service.org,
      id: service.id,
      url: service.url,
      version: service.version,
      arch: service.arch,
      runtime: service.runtime,
      description: service.description,
      createdAt: service.createdAt.toISOString(),
      updatedAt: service.updatedAt.toISOString(),
    };
  }
}

export class ServiceListResponse {
  @ApiProperty({ type: [ServiceResponse] }) items!: ServiceResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
