import * as $protobuf from "protobufjs";
import Long = require("long");

/** Namespace tributary. */
export namespace tributary {

    /** Namespace protocol. */
    namespace protocol {

        /**
         * Properties of a BlobHeader.
         * @deprecated Use tributary.protocol.BlobHeader.$Properties instead.
         */
        interface IBlobHeader extends tributary.protocol.BlobHeader.$Properties {
        }

        /** Represents a BlobHeader. */
        class BlobHeader {

            /**
             * Constructs a new BlobHeader.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.BlobHeader.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** BlobHeader syncId. */
            syncId: string;

            /** BlobHeader shardId. */
            shardId: string;

            /** BlobHeader attempt. */
            attempt: number;

            /** BlobHeader tablePath. */
            tablePath: string;

            /** BlobHeader schemaId. */
            schemaId: Long;

            /** BlobHeader paimonFormatVersion. */
            paimonFormatVersion: number;

            /** BlobHeader tributaryVersion. */
            tributaryVersion: string;

            /** BlobHeader creationTimeMillis. */
            creationTimeMillis: Long;

            /** BlobHeader rowCount. */
            rowCount: Long;

            /** BlobHeader byteCount. */
            byteCount: Long;

            /** BlobHeader fileCount. */
            fileCount: Long;

            /** BlobHeader voteToken. */
            voteToken: Uint8Array;

            /** BlobHeader readPosition. */
            readPosition: string;

            /**
             * Creates a new BlobHeader instance using the specified properties.
             * @param [properties] Properties to set
             * @returns BlobHeader instance
             */
            static create(properties: tributary.protocol.BlobHeader.$Shape): tributary.protocol.BlobHeader & tributary.protocol.BlobHeader.$Shape;
            static create(properties?: tributary.protocol.BlobHeader.$Properties): tributary.protocol.BlobHeader;

            /**
             * Encodes the specified BlobHeader message. Does not implicitly {@link tributary.protocol.BlobHeader.verify|verify} messages.
             * @param message BlobHeader message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.BlobHeader.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a BlobHeader message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.BlobHeader & tributary.protocol.BlobHeader.$Shape} BlobHeader
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.BlobHeader & tributary.protocol.BlobHeader.$Shape;
        }

        namespace BlobHeader {

            /** Properties of a BlobHeader. */
            interface $Properties {

                /** BlobHeader syncId */
                syncId?: string;

                /** BlobHeader shardId */
                shardId?: string;

                /** BlobHeader attempt */
                attempt?: number;

                /** BlobHeader tablePath */
                tablePath?: string;

                /** BlobHeader schemaId */
                schemaId?: Long;

                /** BlobHeader paimonFormatVersion */
                paimonFormatVersion?: number;

                /** BlobHeader tributaryVersion */
                tributaryVersion?: string;

                /** BlobHeader creationTimeMillis */
                creationTimeMillis?: Long;

                /** BlobHeader rowCount */
                rowCount?: Long;

                /** BlobHeader byteCount */
                byteCount?: Long;

                /** BlobHeader fileCount */
                fileCount?: Long;

                /** BlobHeader voteToken */
                voteToken?: Uint8Array;

                /** BlobHeader readPosition */
                readPosition?: string;

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a BlobHeader. */
            type $Shape = tributary.protocol.BlobHeader.$Properties;
        }

        /**
         * Properties of a CommitMessage.
         * @deprecated Use tributary.protocol.CommitMessage.$Properties instead.
         */
        interface ICommitMessage extends tributary.protocol.CommitMessage.$Properties {
        }

        /** Represents a CommitMessage. */
        class CommitMessage {

            /**
             * Constructs a new CommitMessage.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.CommitMessage.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** CommitMessage partition. */
            partition: Uint8Array;

            /** CommitMessage bucket. */
            bucket: number;

            /** CommitMessage totalBuckets. */
            totalBuckets: (number|null);

            /** CommitMessage dataIncrement. */
            dataIncrement: tributary.protocol.DataIncrement;

            /** CommitMessage compactIncrement. */
            compactIncrement: tributary.protocol.CompactIncrement;

            /**
             * Creates a new CommitMessage instance using the specified properties.
             * @param [properties] Properties to set
             * @returns CommitMessage instance
             */
            static create(properties: tributary.protocol.CommitMessage.$Shape): tributary.protocol.CommitMessage & tributary.protocol.CommitMessage.$Shape;
            static create(properties?: tributary.protocol.CommitMessage.$Properties): tributary.protocol.CommitMessage;

            /**
             * Encodes the specified CommitMessage message. Does not implicitly {@link tributary.protocol.CommitMessage.verify|verify} messages.
             * @param message CommitMessage message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.CommitMessage.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a CommitMessage message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.CommitMessage & tributary.protocol.CommitMessage.$Shape} CommitMessage
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.CommitMessage & tributary.protocol.CommitMessage.$Shape;
        }

        namespace CommitMessage {

            /** Properties of a CommitMessage. */
            interface $Properties {

                /** CommitMessage partition */
                partition?: Uint8Array;

                /** CommitMessage bucket */
                bucket?: number;

                /** CommitMessage totalBuckets */
                totalBuckets?: (number|null);

                /** CommitMessage dataIncrement */
                dataIncrement?: tributary.protocol.DataIncrement.$Properties;

                /** CommitMessage compactIncrement */
                compactIncrement?: tributary.protocol.CompactIncrement.$Properties;

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a CommitMessage. */
            type $Shape = tributary.protocol.CommitMessage.$Properties;
        }

        /**
         * Properties of a DataIncrement.
         * @deprecated Use tributary.protocol.DataIncrement.$Properties instead.
         */
        interface IDataIncrement extends tributary.protocol.DataIncrement.$Properties {
        }

        /** Represents a DataIncrement. */
        class DataIncrement {

            /**
             * Constructs a new DataIncrement.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.DataIncrement.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** DataIncrement newFiles. */
            newFiles: tributary.protocol.DataFileMeta[];

            /** DataIncrement deletedFiles. */
            deletedFiles: tributary.protocol.DataFileMeta[];

            /** DataIncrement changelogFiles. */
            changelogFiles: tributary.protocol.DataFileMeta[];

            /** DataIncrement newIndexFiles. */
            newIndexFiles: tributary.protocol.IndexFileMeta[];

            /** DataIncrement deletedIndexFiles. */
            deletedIndexFiles: tributary.protocol.IndexFileMeta[];

            /**
             * Creates a new DataIncrement instance using the specified properties.
             * @param [properties] Properties to set
             * @returns DataIncrement instance
             */
            static create(properties: tributary.protocol.DataIncrement.$Shape): tributary.protocol.DataIncrement & tributary.protocol.DataIncrement.$Shape;
            static create(properties?: tributary.protocol.DataIncrement.$Properties): tributary.protocol.DataIncrement;

            /**
             * Encodes the specified DataIncrement message. Does not implicitly {@link tributary.protocol.DataIncrement.verify|verify} messages.
             * @param message DataIncrement message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.DataIncrement.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a DataIncrement message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.DataIncrement & tributary.protocol.DataIncrement.$Shape} DataIncrement
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.DataIncrement & tributary.protocol.DataIncrement.$Shape;
        }

        namespace DataIncrement {

            /** Properties of a DataIncrement. */
            interface $Properties {

                /** DataIncrement newFiles */
                newFiles?: tributary.protocol.DataFileMeta.$Properties[];

                /** DataIncrement deletedFiles */
                deletedFiles?: tributary.protocol.DataFileMeta.$Properties[];

                /** DataIncrement changelogFiles */
                changelogFiles?: tributary.protocol.DataFileMeta.$Properties[];

                /** DataIncrement newIndexFiles */
                newIndexFiles?: tributary.protocol.IndexFileMeta.$Properties[];

                /** DataIncrement deletedIndexFiles */
                deletedIndexFiles?: tributary.protocol.IndexFileMeta.$Properties[];

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a DataIncrement. */
            type $Shape = tributary.protocol.DataIncrement.$Properties;
        }

        /**
         * Properties of a CompactIncrement.
         * @deprecated Use tributary.protocol.CompactIncrement.$Properties instead.
         */
        interface ICompactIncrement extends tributary.protocol.CompactIncrement.$Properties {
        }

        /** Represents a CompactIncrement. */
        class CompactIncrement {

            /**
             * Constructs a new CompactIncrement.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.CompactIncrement.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** CompactIncrement compactBefore. */
            compactBefore: tributary.protocol.DataFileMeta[];

            /** CompactIncrement compactAfter. */
            compactAfter: tributary.protocol.DataFileMeta[];

            /** CompactIncrement changelogFiles. */
            changelogFiles: tributary.protocol.DataFileMeta[];

            /** CompactIncrement newIndexFiles. */
            newIndexFiles: tributary.protocol.IndexFileMeta[];

            /** CompactIncrement deletedIndexFiles. */
            deletedIndexFiles: tributary.protocol.IndexFileMeta[];

            /**
             * Creates a new CompactIncrement instance using the specified properties.
             * @param [properties] Properties to set
             * @returns CompactIncrement instance
             */
            static create(properties: tributary.protocol.CompactIncrement.$Shape): tributary.protocol.CompactIncrement & tributary.protocol.CompactIncrement.$Shape;
            static create(properties?: tributary.protocol.CompactIncrement.$Properties): tributary.protocol.CompactIncrement;

            /**
             * Encodes the specified CompactIncrement message. Does not implicitly {@link tributary.protocol.CompactIncrement.verify|verify} messages.
             * @param message CompactIncrement message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.CompactIncrement.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a CompactIncrement message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.CompactIncrement & tributary.protocol.CompactIncrement.$Shape} CompactIncrement
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.CompactIncrement & tributary.protocol.CompactIncrement.$Shape;
        }

        namespace CompactIncrement {

            /** Properties of a CompactIncrement. */
            interface $Properties {

                /** CompactIncrement compactBefore */
                compactBefore?: tributary.protocol.DataFileMeta.$Properties[];

                /** CompactIncrement compactAfter */
                compactAfter?: tributary.protocol.DataFileMeta.$Properties[];

                /** CompactIncrement changelogFiles */
                changelogFiles?: tributary.protocol.DataFileMeta.$Properties[];

                /** CompactIncrement newIndexFiles */
                newIndexFiles?: tributary.protocol.IndexFileMeta.$Properties[];

                /** CompactIncrement deletedIndexFiles */
                deletedIndexFiles?: tributary.protocol.IndexFileMeta.$Properties[];

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a CompactIncrement. */
            type $Shape = tributary.protocol.CompactIncrement.$Properties;
        }

        /**
         * Properties of a DataFileMeta.
         * @deprecated Use tributary.protocol.DataFileMeta.$Properties instead.
         */
        interface IDataFileMeta extends tributary.protocol.DataFileMeta.$Properties {
        }

        /** Represents a DataFileMeta. */
        class DataFileMeta {

            /**
             * Constructs a new DataFileMeta.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.DataFileMeta.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** DataFileMeta fileName. */
            fileName: string;

            /** DataFileMeta fileSize. */
            fileSize: Long;

            /** DataFileMeta rowCount. */
            rowCount: Long;

            /** DataFileMeta minKey. */
            minKey: Uint8Array;

            /** DataFileMeta maxKey. */
            maxKey: Uint8Array;

            /** DataFileMeta keyStats. */
            keyStats: tributary.protocol.SimpleStats;

            /** DataFileMeta valueStats. */
            valueStats: tributary.protocol.SimpleStats;

            /** DataFileMeta minSequenceNumber. */
            minSequenceNumber: Long;

            /** DataFileMeta maxSequenceNumber. */
            maxSequenceNumber: Long;

            /** DataFileMeta schemaId. */
            schemaId: Long;

            /** DataFileMeta level. */
            level: number;

            /** DataFileMeta extraFiles. */
            extraFiles: string[];

            /** DataFileMeta creationTimeMillis. */
            creationTimeMillis: (Long|null);

            /** DataFileMeta deleteRowCount. */
            deleteRowCount: (Long|null);

            /** DataFileMeta embeddedIndex. */
            embeddedIndex: (Uint8Array|null);

            /** DataFileMeta fileSource. */
            fileSource: (number|null);

            /** DataFileMeta valueStatsCols. */
            valueStatsCols: tributary.protocol.StringList;

            /** DataFileMeta externalPath. */
            externalPath: (string|null);

            /** DataFileMeta firstRowId. */
            firstRowId: (Long|null);

            /** DataFileMeta writeCols. */
            writeCols: tributary.protocol.StringList;

            /** DataFileMeta writeColsSequences. */
            writeColsSequences: tributary.protocol.LongList;

            /**
             * Creates a new DataFileMeta instance using the specified properties.
             * @param [properties] Properties to set
             * @returns DataFileMeta instance
             */
            static create(properties: tributary.protocol.DataFileMeta.$Shape): tributary.protocol.DataFileMeta & tributary.protocol.DataFileMeta.$Shape;
            static create(properties?: tributary.protocol.DataFileMeta.$Properties): tributary.protocol.DataFileMeta;

            /**
             * Encodes the specified DataFileMeta message. Does not implicitly {@link tributary.protocol.DataFileMeta.verify|verify} messages.
             * @param message DataFileMeta message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.DataFileMeta.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a DataFileMeta message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.DataFileMeta & tributary.protocol.DataFileMeta.$Shape} DataFileMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.DataFileMeta & tributary.protocol.DataFileMeta.$Shape;
        }

        namespace DataFileMeta {

            /** Properties of a DataFileMeta. */
            interface $Properties {

                /** DataFileMeta fileName */
                fileName?: string;

                /** DataFileMeta fileSize */
                fileSize?: Long;

                /** DataFileMeta rowCount */
                rowCount?: Long;

                /** DataFileMeta minKey */
                minKey?: Uint8Array;

                /** DataFileMeta maxKey */
                maxKey?: Uint8Array;

                /** DataFileMeta keyStats */
                keyStats?: tributary.protocol.SimpleStats.$Properties;

                /** DataFileMeta valueStats */
                valueStats?: tributary.protocol.SimpleStats.$Properties;

                /** DataFileMeta minSequenceNumber */
                minSequenceNumber?: Long;

                /** DataFileMeta maxSequenceNumber */
                maxSequenceNumber?: Long;

                /** DataFileMeta schemaId */
                schemaId?: Long;

                /** DataFileMeta level */
                level?: number;

                /** DataFileMeta extraFiles */
                extraFiles?: string[];

                /** DataFileMeta creationTimeMillis */
                creationTimeMillis?: (Long|null);

                /** DataFileMeta deleteRowCount */
                deleteRowCount?: (Long|null);

                /** DataFileMeta embeddedIndex */
                embeddedIndex?: (Uint8Array|null);

                /** DataFileMeta fileSource */
                fileSource?: (number|null);

                /** DataFileMeta valueStatsCols */
                valueStatsCols?: tributary.protocol.StringList.$Properties;

                /** DataFileMeta externalPath */
                externalPath?: (string|null);

                /** DataFileMeta firstRowId */
                firstRowId?: (Long|null);

                /** DataFileMeta writeCols */
                writeCols?: tributary.protocol.StringList.$Properties;

                /** DataFileMeta writeColsSequences */
                writeColsSequences?: tributary.protocol.LongList.$Properties;

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a DataFileMeta. */
            type $Shape = tributary.protocol.DataFileMeta.$Properties;
        }

        /**
         * Properties of a SimpleStats.
         * @deprecated Use tributary.protocol.SimpleStats.$Properties instead.
         */
        interface ISimpleStats extends tributary.protocol.SimpleStats.$Properties {
        }

        /** Represents a SimpleStats. */
        class SimpleStats {

            /**
             * Constructs a new SimpleStats.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.SimpleStats.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** SimpleStats minValues. */
            minValues: Uint8Array;

            /** SimpleStats maxValues. */
            maxValues: Uint8Array;

            /** SimpleStats nullCounts. */
            nullCounts: tributary.protocol.NullCounts;

            /**
             * Creates a new SimpleStats instance using the specified properties.
             * @param [properties] Properties to set
             * @returns SimpleStats instance
             */
            static create(properties: tributary.protocol.SimpleStats.$Shape): tributary.protocol.SimpleStats & tributary.protocol.SimpleStats.$Shape;
            static create(properties?: tributary.protocol.SimpleStats.$Properties): tributary.protocol.SimpleStats;

            /**
             * Encodes the specified SimpleStats message. Does not implicitly {@link tributary.protocol.SimpleStats.verify|verify} messages.
             * @param message SimpleStats message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.SimpleStats.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a SimpleStats message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.SimpleStats & tributary.protocol.SimpleStats.$Shape} SimpleStats
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.SimpleStats & tributary.protocol.SimpleStats.$Shape;
        }

        namespace SimpleStats {

            /** Properties of a SimpleStats. */
            interface $Properties {

                /** SimpleStats minValues */
                minValues?: Uint8Array;

                /** SimpleStats maxValues */
                maxValues?: Uint8Array;

                /** SimpleStats nullCounts */
                nullCounts?: tributary.protocol.NullCounts.$Properties;

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a SimpleStats. */
            type $Shape = tributary.protocol.SimpleStats.$Properties;
        }

        /**
         * Properties of a NullCounts.
         * @deprecated Use tributary.protocol.NullCounts.$Properties instead.
         */
        interface INullCounts extends tributary.protocol.NullCounts.$Properties {
        }

        /** Represents a NullCounts. */
        class NullCounts {

            /**
             * Constructs a new NullCounts.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.NullCounts.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** NullCounts values. */
            values: Long[];

            /** NullCounts nullIndexes. */
            nullIndexes: number[];

            /**
             * Creates a new NullCounts instance using the specified properties.
             * @param [properties] Properties to set
             * @returns NullCounts instance
             */
            static create(properties: tributary.protocol.NullCounts.$Shape): tributary.protocol.NullCounts & tributary.protocol.NullCounts.$Shape;
            static create(properties?: tributary.protocol.NullCounts.$Properties): tributary.protocol.NullCounts;

            /**
             * Encodes the specified NullCounts message. Does not implicitly {@link tributary.protocol.NullCounts.verify|verify} messages.
             * @param message NullCounts message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.NullCounts.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a NullCounts message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.NullCounts & tributary.protocol.NullCounts.$Shape} NullCounts
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.NullCounts & tributary.protocol.NullCounts.$Shape;
        }

        namespace NullCounts {

            /** Properties of a NullCounts. */
            interface $Properties {

                /** NullCounts values */
                values?: Long[];

                /** NullCounts nullIndexes */
                nullIndexes?: number[];

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a NullCounts. */
            type $Shape = tributary.protocol.NullCounts.$Properties;
        }

        /**
         * Properties of a StringList.
         * @deprecated Use tributary.protocol.StringList.$Properties instead.
         */
        interface IStringList extends tributary.protocol.StringList.$Properties {
        }

        /** Represents a StringList. */
        class StringList {

            /**
             * Constructs a new StringList.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.StringList.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** StringList values. */
            values: string[];

            /**
             * Creates a new StringList instance using the specified properties.
             * @param [properties] Properties to set
             * @returns StringList instance
             */
            static create(properties: tributary.protocol.StringList.$Shape): tributary.protocol.StringList & tributary.protocol.StringList.$Shape;
            static create(properties?: tributary.protocol.StringList.$Properties): tributary.protocol.StringList;

            /**
             * Encodes the specified StringList message. Does not implicitly {@link tributary.protocol.StringList.verify|verify} messages.
             * @param message StringList message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.StringList.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a StringList message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.StringList & tributary.protocol.StringList.$Shape} StringList
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.StringList & tributary.protocol.StringList.$Shape;
        }

        namespace StringList {

            /** Properties of a StringList. */
            interface $Properties {

                /** StringList values */
                values?: string[];

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a StringList. */
            type $Shape = tributary.protocol.StringList.$Properties;
        }

        /**
         * Properties of a LongList.
         * @deprecated Use tributary.protocol.LongList.$Properties instead.
         */
        interface ILongList extends tributary.protocol.LongList.$Properties {
        }

        /** Represents a LongList. */
        class LongList {

            /**
             * Constructs a new LongList.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.LongList.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** LongList values. */
            values: Long[];

            /**
             * Creates a new LongList instance using the specified properties.
             * @param [properties] Properties to set
             * @returns LongList instance
             */
            static create(properties: tributary.protocol.LongList.$Shape): tributary.protocol.LongList & tributary.protocol.LongList.$Shape;
            static create(properties?: tributary.protocol.LongList.$Properties): tributary.protocol.LongList;

            /**
             * Encodes the specified LongList message. Does not implicitly {@link tributary.protocol.LongList.verify|verify} messages.
             * @param message LongList message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.LongList.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a LongList message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.LongList & tributary.protocol.LongList.$Shape} LongList
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.LongList & tributary.protocol.LongList.$Shape;
        }

        namespace LongList {

            /** Properties of a LongList. */
            interface $Properties {

                /** LongList values */
                values?: Long[];

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a LongList. */
            type $Shape = tributary.protocol.LongList.$Properties;
        }

        /**
         * Properties of an IndexFileMeta.
         * @deprecated Use tributary.protocol.IndexFileMeta.$Properties instead.
         */
        interface IIndexFileMeta extends tributary.protocol.IndexFileMeta.$Properties {
        }

        /** Represents an IndexFileMeta. */
        class IndexFileMeta {

            /**
             * Constructs a new IndexFileMeta.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.IndexFileMeta.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** IndexFileMeta indexType. */
            indexType: string;

            /** IndexFileMeta fileName. */
            fileName: string;

            /** IndexFileMeta fileSize. */
            fileSize: Long;

            /** IndexFileMeta rowCount. */
            rowCount: Long;

            /** IndexFileMeta deletionVectorRanges. */
            deletionVectorRanges: tributary.protocol.DeletionVectorRanges;

            /** IndexFileMeta externalPath. */
            externalPath: (string|null);

            /** IndexFileMeta globalIndex. */
            globalIndex: tributary.protocol.GlobalIndexMeta;

            /**
             * Creates a new IndexFileMeta instance using the specified properties.
             * @param [properties] Properties to set
             * @returns IndexFileMeta instance
             */
            static create(properties: tributary.protocol.IndexFileMeta.$Shape): tributary.protocol.IndexFileMeta & tributary.protocol.IndexFileMeta.$Shape;
            static create(properties?: tributary.protocol.IndexFileMeta.$Properties): tributary.protocol.IndexFileMeta;

            /**
             * Encodes the specified IndexFileMeta message. Does not implicitly {@link tributary.protocol.IndexFileMeta.verify|verify} messages.
             * @param message IndexFileMeta message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.IndexFileMeta.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an IndexFileMeta message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.IndexFileMeta & tributary.protocol.IndexFileMeta.$Shape} IndexFileMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.IndexFileMeta & tributary.protocol.IndexFileMeta.$Shape;
        }

        namespace IndexFileMeta {

            /** Properties of an IndexFileMeta. */
            interface $Properties {

                /** IndexFileMeta indexType */
                indexType?: string;

                /** IndexFileMeta fileName */
                fileName?: string;

                /** IndexFileMeta fileSize */
                fileSize?: Long;

                /** IndexFileMeta rowCount */
                rowCount?: Long;

                /** IndexFileMeta deletionVectorRanges */
                deletionVectorRanges?: tributary.protocol.DeletionVectorRanges.$Properties;

                /** IndexFileMeta externalPath */
                externalPath?: (string|null);

                /** IndexFileMeta globalIndex */
                globalIndex?: tributary.protocol.GlobalIndexMeta.$Properties;

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an IndexFileMeta. */
            type $Shape = tributary.protocol.IndexFileMeta.$Properties;
        }

        /**
         * Properties of a DeletionVectorRanges.
         * @deprecated Use tributary.protocol.DeletionVectorRanges.$Properties instead.
         */
        interface IDeletionVectorRanges extends tributary.protocol.DeletionVectorRanges.$Properties {
        }

        /** Represents a DeletionVectorRanges. */
        class DeletionVectorRanges {

            /**
             * Constructs a new DeletionVectorRanges.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.DeletionVectorRanges.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** DeletionVectorRanges values. */
            values: tributary.protocol.DeletionVectorMeta[];

            /**
             * Creates a new DeletionVectorRanges instance using the specified properties.
             * @param [properties] Properties to set
             * @returns DeletionVectorRanges instance
             */
            static create(properties: tributary.protocol.DeletionVectorRanges.$Shape): tributary.protocol.DeletionVectorRanges & tributary.protocol.DeletionVectorRanges.$Shape;
            static create(properties?: tributary.protocol.DeletionVectorRanges.$Properties): tributary.protocol.DeletionVectorRanges;

            /**
             * Encodes the specified DeletionVectorRanges message. Does not implicitly {@link tributary.protocol.DeletionVectorRanges.verify|verify} messages.
             * @param message DeletionVectorRanges message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.DeletionVectorRanges.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a DeletionVectorRanges message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.DeletionVectorRanges & tributary.protocol.DeletionVectorRanges.$Shape} DeletionVectorRanges
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.DeletionVectorRanges & tributary.protocol.DeletionVectorRanges.$Shape;
        }

        namespace DeletionVectorRanges {

            /** Properties of a DeletionVectorRanges. */
            interface $Properties {

                /** DeletionVectorRanges values */
                values?: tributary.protocol.DeletionVectorMeta.$Properties[];

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a DeletionVectorRanges. */
            type $Shape = tributary.protocol.DeletionVectorRanges.$Properties;
        }

        /**
         * Properties of a DeletionVectorMeta.
         * @deprecated Use tributary.protocol.DeletionVectorMeta.$Properties instead.
         */
        interface IDeletionVectorMeta extends tributary.protocol.DeletionVectorMeta.$Properties {
        }

        /** Represents a DeletionVectorMeta. */
        class DeletionVectorMeta {

            /**
             * Constructs a new DeletionVectorMeta.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.DeletionVectorMeta.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** DeletionVectorMeta dataFileName. */
            dataFileName: string;

            /** DeletionVectorMeta offset. */
            offset: number;

            /** DeletionVectorMeta length. */
            length: number;

            /** DeletionVectorMeta cardinality. */
            cardinality: (Long|null);

            /**
             * Creates a new DeletionVectorMeta instance using the specified properties.
             * @param [properties] Properties to set
             * @returns DeletionVectorMeta instance
             */
            static create(properties: tributary.protocol.DeletionVectorMeta.$Shape): tributary.protocol.DeletionVectorMeta & tributary.protocol.DeletionVectorMeta.$Shape;
            static create(properties?: tributary.protocol.DeletionVectorMeta.$Properties): tributary.protocol.DeletionVectorMeta;

            /**
             * Encodes the specified DeletionVectorMeta message. Does not implicitly {@link tributary.protocol.DeletionVectorMeta.verify|verify} messages.
             * @param message DeletionVectorMeta message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.DeletionVectorMeta.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a DeletionVectorMeta message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.DeletionVectorMeta & tributary.protocol.DeletionVectorMeta.$Shape} DeletionVectorMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.DeletionVectorMeta & tributary.protocol.DeletionVectorMeta.$Shape;
        }

        namespace DeletionVectorMeta {

            /** Properties of a DeletionVectorMeta. */
            interface $Properties {

                /** DeletionVectorMeta dataFileName */
                dataFileName?: string;

                /** DeletionVectorMeta offset */
                offset?: number;

                /** DeletionVectorMeta length */
                length?: number;

                /** DeletionVectorMeta cardinality */
                cardinality?: (Long|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a DeletionVectorMeta. */
            type $Shape = tributary.protocol.DeletionVectorMeta.$Properties;
        }

        /**
         * Properties of a GlobalIndexMeta.
         * @deprecated Use tributary.protocol.GlobalIndexMeta.$Properties instead.
         */
        interface IGlobalIndexMeta extends tributary.protocol.GlobalIndexMeta.$Properties {
        }

        /** Represents a GlobalIndexMeta. */
        class GlobalIndexMeta {

            /**
             * Constructs a new GlobalIndexMeta.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.GlobalIndexMeta.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** GlobalIndexMeta rowRangeStart. */
            rowRangeStart: Long;

            /** GlobalIndexMeta rowRangeEnd. */
            rowRangeEnd: Long;

            /** GlobalIndexMeta indexFieldId. */
            indexFieldId: number;

            /** GlobalIndexMeta extraFieldIds. */
            extraFieldIds: tributary.protocol.IntList;

            /** GlobalIndexMeta indexMeta. */
            indexMeta: (Uint8Array|null);

            /** GlobalIndexMeta sourceMeta. */
            sourceMeta: (Uint8Array|null);

            /**
             * Creates a new GlobalIndexMeta instance using the specified properties.
             * @param [properties] Properties to set
             * @returns GlobalIndexMeta instance
             */
            static create(properties: tributary.protocol.GlobalIndexMeta.$Shape): tributary.protocol.GlobalIndexMeta & tributary.protocol.GlobalIndexMeta.$Shape;
            static create(properties?: tributary.protocol.GlobalIndexMeta.$Properties): tributary.protocol.GlobalIndexMeta;

            /**
             * Encodes the specified GlobalIndexMeta message. Does not implicitly {@link tributary.protocol.GlobalIndexMeta.verify|verify} messages.
             * @param message GlobalIndexMeta message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.GlobalIndexMeta.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes a GlobalIndexMeta message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.GlobalIndexMeta & tributary.protocol.GlobalIndexMeta.$Shape} GlobalIndexMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.GlobalIndexMeta & tributary.protocol.GlobalIndexMeta.$Shape;
        }

        namespace GlobalIndexMeta {

            /** Properties of a GlobalIndexMeta. */
            interface $Properties {

                /** GlobalIndexMeta rowRangeStart */
                rowRangeStart?: Long;

                /** GlobalIndexMeta rowRangeEnd */
                rowRangeEnd?: Long;

                /** GlobalIndexMeta indexFieldId */
                indexFieldId?: number;

                /** GlobalIndexMeta extraFieldIds */
                extraFieldIds?: tributary.protocol.IntList.$Properties;

                /** GlobalIndexMeta indexMeta */
                indexMeta?: (Uint8Array|null);

                /** GlobalIndexMeta sourceMeta */
                sourceMeta?: (Uint8Array|null);

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of a GlobalIndexMeta. */
            type $Shape = tributary.protocol.GlobalIndexMeta.$Properties;
        }

        /**
         * Properties of an IntList.
         * @deprecated Use tributary.protocol.IntList.$Properties instead.
         */
        interface IIntList extends tributary.protocol.IntList.$Properties {
        }

        /** Represents an IntList. */
        class IntList {

            /**
             * Constructs a new IntList.
             * @param [properties] Properties to set
             */
            constructor(properties?: tributary.protocol.IntList.$Properties);

            /** Unknown fields preserved while decoding when enabled */
            $unknowns?: Uint8Array[];

            /** IntList values. */
            values: number[];

            /**
             * Creates a new IntList instance using the specified properties.
             * @param [properties] Properties to set
             * @returns IntList instance
             */
            static create(properties: tributary.protocol.IntList.$Shape): tributary.protocol.IntList & tributary.protocol.IntList.$Shape;
            static create(properties?: tributary.protocol.IntList.$Properties): tributary.protocol.IntList;

            /**
             * Encodes the specified IntList message. Does not implicitly {@link tributary.protocol.IntList.verify|verify} messages.
             * @param message IntList message or plain object to encode
             * @param [writer] Writer to encode to
             * @returns Writer
             */
            static encode(message: tributary.protocol.IntList.$Properties, writer?: $protobuf.Writer): $protobuf.Writer;

            /**
             * Decodes an IntList message from the specified reader or buffer.
             * @param reader Reader or buffer to decode from
             * @param [length] Message length if known beforehand
             * @returns {tributary.protocol.IntList & tributary.protocol.IntList.$Shape} IntList
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            static decode(reader: ($protobuf.Reader|Uint8Array), length?: number): tributary.protocol.IntList & tributary.protocol.IntList.$Shape;
        }

        namespace IntList {

            /** Properties of an IntList. */
            interface $Properties {

                /** IntList values */
                values?: number[];

                /** Unknown fields preserved while decoding when enabled */
                $unknowns?: Uint8Array[];
            }

            /** Shape of an IntList. */
            type $Shape = tributary.protocol.IntList.$Properties;
        }
    }
}
