/*eslint-disable block-scoped-var, id-length, no-control-regex, no-magic-numbers, no-mixed-operators, no-prototype-builtins, no-redeclare, no-shadow, no-var, sort-vars, default-case, jsdoc/require-param*/
import $protobuf from "protobufjs/minimal.js";

// Common aliases
const $Reader = $protobuf.Reader, $Writer = $protobuf.Writer, $util = $protobuf.util;
const $Object = $util.global.Object, $undefined = $util.global.undefined, $Error = $util.global.Error, $RangeError = $util.global.RangeError;

// Exported root namespace
const $root = $protobuf.roots["default"] || ($protobuf.roots["default"] = {});

export const tributary = $root.tributary = (() => {

    /**
     * Namespace tributary.
     * @exports tributary
     * @namespace
     */
    const tributary = {};

    tributary.protocol = (function() {

        /**
         * Namespace protocol.
         * @memberof tributary
         * @namespace
         */
        const protocol = {};

        protocol.BlobHeader = (function() {

            /**
             * Properties of a BlobHeader.
             * @typedef {Object} tributary.protocol.BlobHeader.$Properties
             * @property {string} [syncId] BlobHeader syncId
             * @property {string} [shardId] BlobHeader shardId
             * @property {number} [attempt] BlobHeader attempt
             * @property {string} [tablePath] BlobHeader tablePath
             * @property {Long} [schemaId] BlobHeader schemaId
             * @property {number} [paimonFormatVersion] BlobHeader paimonFormatVersion
             * @property {string} [tributaryVersion] BlobHeader tributaryVersion
             * @property {Long} [creationTimeMillis] BlobHeader creationTimeMillis
             * @property {Long} [rowCount] BlobHeader rowCount
             * @property {Long} [byteCount] BlobHeader byteCount
             * @property {Long} [fileCount] BlobHeader fileCount
             * @property {Uint8Array} [voteToken] BlobHeader voteToken
             * @property {string} [readPosition] BlobHeader readPosition
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a BlobHeader.
             * @memberof tributary.protocol
             * @interface IBlobHeader
             * @augments tributary.protocol.BlobHeader.$Properties
             * @deprecated Use tributary.protocol.BlobHeader.$Properties instead.
             */

            /**
             * Shape of a BlobHeader.
             * @typedef {tributary.protocol.BlobHeader.$Properties} tributary.protocol.BlobHeader.$Shape
             */

            /**
             * Constructs a new BlobHeader.
             * @memberof tributary.protocol
             * @classdesc Represents a BlobHeader.
             * @constructor
             * @param {tributary.protocol.BlobHeader.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const BlobHeader = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * BlobHeader syncId.
             * @member {string} syncId
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.syncId = "";

            /**
             * BlobHeader shardId.
             * @member {string} shardId
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.shardId = "";

            /**
             * BlobHeader attempt.
             * @member {number} attempt
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.attempt = 0;

            /**
             * BlobHeader tablePath.
             * @member {string} tablePath
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.tablePath = "";

            /**
             * BlobHeader schemaId.
             * @member {Long} schemaId
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.schemaId = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * BlobHeader paimonFormatVersion.
             * @member {number} paimonFormatVersion
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.paimonFormatVersion = 0;

            /**
             * BlobHeader tributaryVersion.
             * @member {string} tributaryVersion
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.tributaryVersion = "";

            /**
             * BlobHeader creationTimeMillis.
             * @member {Long} creationTimeMillis
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.creationTimeMillis = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * BlobHeader rowCount.
             * @member {Long} rowCount
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.rowCount = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * BlobHeader byteCount.
             * @member {Long} byteCount
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.byteCount = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * BlobHeader fileCount.
             * @member {Long} fileCount
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.fileCount = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * BlobHeader voteToken.
             * @member {Uint8Array} voteToken
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.voteToken = $util.newBuffer([]);

            /**
             * BlobHeader readPosition.
             * @member {string} readPosition
             * @memberof tributary.protocol.BlobHeader
             * @instance
             */
            BlobHeader.prototype.readPosition = "";

            /**
             * Creates a new BlobHeader instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.BlobHeader
             * @static
             * @param {tributary.protocol.BlobHeader.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.BlobHeader} BlobHeader instance
             * @type {{
             *   (properties: tributary.protocol.BlobHeader.$Shape): tributary.protocol.BlobHeader & tributary.protocol.BlobHeader.$Shape;
             *   (properties?: tributary.protocol.BlobHeader.$Properties): tributary.protocol.BlobHeader;
             * }}
             */
            BlobHeader.create = function(properties) {
                return new BlobHeader(properties);
            };

            /**
             * Encodes the specified BlobHeader message. Does not implicitly {@link tributary.protocol.BlobHeader.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.BlobHeader
             * @static
             * @param {tributary.protocol.BlobHeader.$Properties} message BlobHeader message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            BlobHeader.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.syncId != null && $Object.hasOwnProperty.call(message, "syncId") && message.syncId !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.syncId);
                if (message.shardId != null && $Object.hasOwnProperty.call(message, "shardId") && message.shardId !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.shardId);
                if (message.attempt != null && $Object.hasOwnProperty.call(message, "attempt") && message.attempt !== 0)
                    writer.uint32(/* id 3, wireType 0 =*/24).uint32(message.attempt);
                if (message.tablePath != null && $Object.hasOwnProperty.call(message, "tablePath") && message.tablePath !== "")
                    writer.uint32(/* id 4, wireType 2 =*/34).string(message.tablePath);
                if (message.schemaId != null && $Object.hasOwnProperty.call(message, "schemaId") && (typeof message.schemaId === "object" ? message.schemaId.low || message.schemaId.high : message.schemaId !== 0))
                    writer.uint32(/* id 5, wireType 0 =*/40).int64(message.schemaId);
                if (message.paimonFormatVersion != null && $Object.hasOwnProperty.call(message, "paimonFormatVersion") && message.paimonFormatVersion !== 0)
                    writer.uint32(/* id 6, wireType 0 =*/48).uint32(message.paimonFormatVersion);
                if (message.tributaryVersion != null && $Object.hasOwnProperty.call(message, "tributaryVersion") && message.tributaryVersion !== "")
                    writer.uint32(/* id 7, wireType 2 =*/58).string(message.tributaryVersion);
                if (message.creationTimeMillis != null && $Object.hasOwnProperty.call(message, "creationTimeMillis") && (typeof message.creationTimeMillis === "object" ? message.creationTimeMillis.low || message.creationTimeMillis.high : message.creationTimeMillis !== 0))
                    writer.uint32(/* id 8, wireType 0 =*/64).int64(message.creationTimeMillis);
                if (message.rowCount != null && $Object.hasOwnProperty.call(message, "rowCount") && (typeof message.rowCount === "object" ? message.rowCount.low || message.rowCount.high : message.rowCount !== 0))
                    writer.uint32(/* id 9, wireType 0 =*/72).int64(message.rowCount);
                if (message.byteCount != null && $Object.hasOwnProperty.call(message, "byteCount") && (typeof message.byteCount === "object" ? message.byteCount.low || message.byteCount.high : message.byteCount !== 0))
                    writer.uint32(/* id 10, wireType 0 =*/80).int64(message.byteCount);
                if (message.fileCount != null && $Object.hasOwnProperty.call(message, "fileCount") && (typeof message.fileCount === "object" ? message.fileCount.low || message.fileCount.high : message.fileCount !== 0))
                    writer.uint32(/* id 11, wireType 0 =*/88).int64(message.fileCount);
                if (message.voteToken != null && $Object.hasOwnProperty.call(message, "voteToken") && message.voteToken.length)
                    writer.uint32(/* id 12, wireType 2 =*/98).bytes(message.voteToken);
                if (message.readPosition != null && $Object.hasOwnProperty.call(message, "readPosition") && message.readPosition !== "")
                    writer.uint32(/* id 13, wireType 2 =*/106).string(message.readPosition);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a BlobHeader message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.BlobHeader
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.BlobHeader & tributary.protocol.BlobHeader.$Shape} BlobHeader
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            BlobHeader.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.BlobHeader();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.syncId = value;
                            else
                                delete message.syncId;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.shardId = value;
                            else
                                delete message.shardId;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.attempt = value;
                            else
                                delete message.attempt;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.tablePath = value;
                            else
                                delete message.tablePath;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.schemaId = value;
                            else
                                delete message.schemaId;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.uint32())
                                message.paimonFormatVersion = value;
                            else
                                delete message.paimonFormatVersion;
                            continue;
                        }
                    case 7: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.tributaryVersion = value;
                            else
                                delete message.tributaryVersion;
                            continue;
                        }
                    case 8: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.creationTimeMillis = value;
                            else
                                delete message.creationTimeMillis;
                            continue;
                        }
                    case 9: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.rowCount = value;
                            else
                                delete message.rowCount;
                            continue;
                        }
                    case 10: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.byteCount = value;
                            else
                                delete message.byteCount;
                            continue;
                        }
                    case 11: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.fileCount = value;
                            else
                                delete message.fileCount;
                            continue;
                        }
                    case 12: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.voteToken = value;
                            else
                                delete message.voteToken;
                            continue;
                        }
                    case 13: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.readPosition = value;
                            else
                                delete message.readPosition;
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return BlobHeader;
        })();

        protocol.CommitMessage = (function() {

            /**
             * Properties of a CommitMessage.
             * @typedef {Object} tributary.protocol.CommitMessage.$Properties
             * @property {Uint8Array} [partition] CommitMessage partition
             * @property {number} [bucket] CommitMessage bucket
             * @property {number|null} [totalBuckets] CommitMessage totalBuckets
             * @property {tributary.protocol.DataIncrement.$Properties} [dataIncrement] CommitMessage dataIncrement
             * @property {tributary.protocol.CompactIncrement.$Properties} [compactIncrement] CommitMessage compactIncrement
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a CommitMessage.
             * @memberof tributary.protocol
             * @interface ICommitMessage
             * @augments tributary.protocol.CommitMessage.$Properties
             * @deprecated Use tributary.protocol.CommitMessage.$Properties instead.
             */

            /**
             * Shape of a CommitMessage.
             * @typedef {tributary.protocol.CommitMessage.$Properties} tributary.protocol.CommitMessage.$Shape
             */

            /**
             * Constructs a new CommitMessage.
             * @memberof tributary.protocol
             * @classdesc Represents a CommitMessage.
             * @constructor
             * @param {tributary.protocol.CommitMessage.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const CommitMessage = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * CommitMessage partition.
             * @member {Uint8Array} partition
             * @memberof tributary.protocol.CommitMessage
             * @instance
             */
            CommitMessage.prototype.partition = $util.newBuffer([]);

            /**
             * CommitMessage bucket.
             * @member {number} bucket
             * @memberof tributary.protocol.CommitMessage
             * @instance
             */
            CommitMessage.prototype.bucket = 0;

            /**
             * CommitMessage totalBuckets.
             * @member {number|null} totalBuckets
             * @memberof tributary.protocol.CommitMessage
             * @instance
             */
            CommitMessage.prototype.totalBuckets = null;

            /**
             * CommitMessage dataIncrement.
             * @member {tributary.protocol.DataIncrement} dataIncrement
             * @memberof tributary.protocol.CommitMessage
             * @instance
             */
            CommitMessage.prototype.dataIncrement = null;

            /**
             * CommitMessage compactIncrement.
             * @member {tributary.protocol.CompactIncrement} compactIncrement
             * @memberof tributary.protocol.CommitMessage
             * @instance
             */
            CommitMessage.prototype.compactIncrement = null;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(CommitMessage.prototype, "_totalBuckets", {
                get: $util.oneOfGetter($oneOfFields = ["totalBuckets"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new CommitMessage instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.CommitMessage
             * @static
             * @param {tributary.protocol.CommitMessage.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.CommitMessage} CommitMessage instance
             * @type {{
             *   (properties: tributary.protocol.CommitMessage.$Shape): tributary.protocol.CommitMessage & tributary.protocol.CommitMessage.$Shape;
             *   (properties?: tributary.protocol.CommitMessage.$Properties): tributary.protocol.CommitMessage;
             * }}
             */
            CommitMessage.create = function(properties) {
                return new CommitMessage(properties);
            };

            /**
             * Encodes the specified CommitMessage message. Does not implicitly {@link tributary.protocol.CommitMessage.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.CommitMessage
             * @static
             * @param {tributary.protocol.CommitMessage.$Properties} message CommitMessage message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            CommitMessage.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.partition != null && $Object.hasOwnProperty.call(message, "partition") && message.partition.length)
                    writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.partition);
                if (message.bucket != null && $Object.hasOwnProperty.call(message, "bucket") && message.bucket !== 0)
                    writer.uint32(/* id 2, wireType 0 =*/16).sint32(message.bucket);
                if (message.totalBuckets != null && $Object.hasOwnProperty.call(message, "totalBuckets"))
                    writer.uint32(/* id 3, wireType 0 =*/24).sint32(message.totalBuckets);
                if (message.dataIncrement != null && $Object.hasOwnProperty.call(message, "dataIncrement"))
                    $root.tributary.protocol.DataIncrement.encode(message.dataIncrement, writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                if (message.compactIncrement != null && $Object.hasOwnProperty.call(message, "compactIncrement"))
                    $root.tributary.protocol.CompactIncrement.encode(message.compactIncrement, writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a CommitMessage message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.CommitMessage
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.CommitMessage & tributary.protocol.CommitMessage.$Shape} CommitMessage
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            CommitMessage.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.CommitMessage();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.partition = value;
                            else
                                delete message.partition;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.sint32())
                                message.bucket = value;
                            else
                                delete message.bucket;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 0)
                                break;
                            message.totalBuckets = reader.sint32();
                            message._totalBuckets = "totalBuckets";
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            message.dataIncrement = $root.tributary.protocol.DataIncrement.decode(reader, reader.size(), $undefined, _depth + 1, message.dataIncrement);
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            message.compactIncrement = $root.tributary.protocol.CompactIncrement.decode(reader, reader.size(), $undefined, _depth + 1, message.compactIncrement);
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return CommitMessage;
        })();

        protocol.DataIncrement = (function() {

            /**
             * Properties of a DataIncrement.
             * @typedef {Object} tributary.protocol.DataIncrement.$Properties
             * @property {Array.<tributary.protocol.DataFileMeta.$Properties>} [newFiles] DataIncrement newFiles
             * @property {Array.<tributary.protocol.DataFileMeta.$Properties>} [deletedFiles] DataIncrement deletedFiles
             * @property {Array.<tributary.protocol.DataFileMeta.$Properties>} [changelogFiles] DataIncrement changelogFiles
             * @property {Array.<tributary.protocol.IndexFileMeta.$Properties>} [newIndexFiles] DataIncrement newIndexFiles
             * @property {Array.<tributary.protocol.IndexFileMeta.$Properties>} [deletedIndexFiles] DataIncrement deletedIndexFiles
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a DataIncrement.
             * @memberof tributary.protocol
             * @interface IDataIncrement
             * @augments tributary.protocol.DataIncrement.$Properties
             * @deprecated Use tributary.protocol.DataIncrement.$Properties instead.
             */

            /**
             * Shape of a DataIncrement.
             * @typedef {tributary.protocol.DataIncrement.$Properties} tributary.protocol.DataIncrement.$Shape
             */

            /**
             * Constructs a new DataIncrement.
             * @memberof tributary.protocol
             * @classdesc Represents a DataIncrement.
             * @constructor
             * @param {tributary.protocol.DataIncrement.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const DataIncrement = function (properties) {
                this.newFiles = [];
                this.deletedFiles = [];
                this.changelogFiles = [];
                this.newIndexFiles = [];
                this.deletedIndexFiles = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * DataIncrement newFiles.
             * @member {Array.<tributary.protocol.DataFileMeta>} newFiles
             * @memberof tributary.protocol.DataIncrement
             * @instance
             */
            DataIncrement.prototype.newFiles = $util.emptyArray;

            /**
             * DataIncrement deletedFiles.
             * @member {Array.<tributary.protocol.DataFileMeta>} deletedFiles
             * @memberof tributary.protocol.DataIncrement
             * @instance
             */
            DataIncrement.prototype.deletedFiles = $util.emptyArray;

            /**
             * DataIncrement changelogFiles.
             * @member {Array.<tributary.protocol.DataFileMeta>} changelogFiles
             * @memberof tributary.protocol.DataIncrement
             * @instance
             */
            DataIncrement.prototype.changelogFiles = $util.emptyArray;

            /**
             * DataIncrement newIndexFiles.
             * @member {Array.<tributary.protocol.IndexFileMeta>} newIndexFiles
             * @memberof tributary.protocol.DataIncrement
             * @instance
             */
            DataIncrement.prototype.newIndexFiles = $util.emptyArray;

            /**
             * DataIncrement deletedIndexFiles.
             * @member {Array.<tributary.protocol.IndexFileMeta>} deletedIndexFiles
             * @memberof tributary.protocol.DataIncrement
             * @instance
             */
            DataIncrement.prototype.deletedIndexFiles = $util.emptyArray;

            /**
             * Creates a new DataIncrement instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.DataIncrement
             * @static
             * @param {tributary.protocol.DataIncrement.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.DataIncrement} DataIncrement instance
             * @type {{
             *   (properties: tributary.protocol.DataIncrement.$Shape): tributary.protocol.DataIncrement & tributary.protocol.DataIncrement.$Shape;
             *   (properties?: tributary.protocol.DataIncrement.$Properties): tributary.protocol.DataIncrement;
             * }}
             */
            DataIncrement.create = function(properties) {
                return new DataIncrement(properties);
            };

            /**
             * Encodes the specified DataIncrement message. Does not implicitly {@link tributary.protocol.DataIncrement.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.DataIncrement
             * @static
             * @param {tributary.protocol.DataIncrement.$Properties} message DataIncrement message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            DataIncrement.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.newFiles != null && message.newFiles.length)
                    for (let i = 0; i < message.newFiles.length; ++i)
                        $root.tributary.protocol.DataFileMeta.encode(message.newFiles[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.deletedFiles != null && message.deletedFiles.length)
                    for (let i = 0; i < message.deletedFiles.length; ++i)
                        $root.tributary.protocol.DataFileMeta.encode(message.deletedFiles[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                if (message.changelogFiles != null && message.changelogFiles.length)
                    for (let i = 0; i < message.changelogFiles.length; ++i)
                        $root.tributary.protocol.DataFileMeta.encode(message.changelogFiles[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                if (message.newIndexFiles != null && message.newIndexFiles.length)
                    for (let i = 0; i < message.newIndexFiles.length; ++i)
                        $root.tributary.protocol.IndexFileMeta.encode(message.newIndexFiles[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                if (message.deletedIndexFiles != null && message.deletedIndexFiles.length)
                    for (let i = 0; i < message.deletedIndexFiles.length; ++i)
                        $root.tributary.protocol.IndexFileMeta.encode(message.deletedIndexFiles[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a DataIncrement message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.DataIncrement
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.DataIncrement & tributary.protocol.DataIncrement.$Shape} DataIncrement
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            DataIncrement.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.DataIncrement();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.newFiles && message.newFiles.length))
                                message.newFiles = [];
                            message.newFiles.push($root.tributary.protocol.DataFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if (!(message.deletedFiles && message.deletedFiles.length))
                                message.deletedFiles = [];
                            message.deletedFiles.push($root.tributary.protocol.DataFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            if (!(message.changelogFiles && message.changelogFiles.length))
                                message.changelogFiles = [];
                            message.changelogFiles.push($root.tributary.protocol.DataFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if (!(message.newIndexFiles && message.newIndexFiles.length))
                                message.newIndexFiles = [];
                            message.newIndexFiles.push($root.tributary.protocol.IndexFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            if (!(message.deletedIndexFiles && message.deletedIndexFiles.length))
                                message.deletedIndexFiles = [];
                            message.deletedIndexFiles.push($root.tributary.protocol.IndexFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return DataIncrement;
        })();

        protocol.CompactIncrement = (function() {

            /**
             * Properties of a CompactIncrement.
             * @typedef {Object} tributary.protocol.CompactIncrement.$Properties
             * @property {Array.<tributary.protocol.DataFileMeta.$Properties>} [compactBefore] CompactIncrement compactBefore
             * @property {Array.<tributary.protocol.DataFileMeta.$Properties>} [compactAfter] CompactIncrement compactAfter
             * @property {Array.<tributary.protocol.DataFileMeta.$Properties>} [changelogFiles] CompactIncrement changelogFiles
             * @property {Array.<tributary.protocol.IndexFileMeta.$Properties>} [newIndexFiles] CompactIncrement newIndexFiles
             * @property {Array.<tributary.protocol.IndexFileMeta.$Properties>} [deletedIndexFiles] CompactIncrement deletedIndexFiles
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a CompactIncrement.
             * @memberof tributary.protocol
             * @interface ICompactIncrement
             * @augments tributary.protocol.CompactIncrement.$Properties
             * @deprecated Use tributary.protocol.CompactIncrement.$Properties instead.
             */

            /**
             * Shape of a CompactIncrement.
             * @typedef {tributary.protocol.CompactIncrement.$Properties} tributary.protocol.CompactIncrement.$Shape
             */

            /**
             * Constructs a new CompactIncrement.
             * @memberof tributary.protocol
             * @classdesc Represents a CompactIncrement.
             * @constructor
             * @param {tributary.protocol.CompactIncrement.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const CompactIncrement = function (properties) {
                this.compactBefore = [];
                this.compactAfter = [];
                this.changelogFiles = [];
                this.newIndexFiles = [];
                this.deletedIndexFiles = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * CompactIncrement compactBefore.
             * @member {Array.<tributary.protocol.DataFileMeta>} compactBefore
             * @memberof tributary.protocol.CompactIncrement
             * @instance
             */
            CompactIncrement.prototype.compactBefore = $util.emptyArray;

            /**
             * CompactIncrement compactAfter.
             * @member {Array.<tributary.protocol.DataFileMeta>} compactAfter
             * @memberof tributary.protocol.CompactIncrement
             * @instance
             */
            CompactIncrement.prototype.compactAfter = $util.emptyArray;

            /**
             * CompactIncrement changelogFiles.
             * @member {Array.<tributary.protocol.DataFileMeta>} changelogFiles
             * @memberof tributary.protocol.CompactIncrement
             * @instance
             */
            CompactIncrement.prototype.changelogFiles = $util.emptyArray;

            /**
             * CompactIncrement newIndexFiles.
             * @member {Array.<tributary.protocol.IndexFileMeta>} newIndexFiles
             * @memberof tributary.protocol.CompactIncrement
             * @instance
             */
            CompactIncrement.prototype.newIndexFiles = $util.emptyArray;

            /**
             * CompactIncrement deletedIndexFiles.
             * @member {Array.<tributary.protocol.IndexFileMeta>} deletedIndexFiles
             * @memberof tributary.protocol.CompactIncrement
             * @instance
             */
            CompactIncrement.prototype.deletedIndexFiles = $util.emptyArray;

            /**
             * Creates a new CompactIncrement instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.CompactIncrement
             * @static
             * @param {tributary.protocol.CompactIncrement.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.CompactIncrement} CompactIncrement instance
             * @type {{
             *   (properties: tributary.protocol.CompactIncrement.$Shape): tributary.protocol.CompactIncrement & tributary.protocol.CompactIncrement.$Shape;
             *   (properties?: tributary.protocol.CompactIncrement.$Properties): tributary.protocol.CompactIncrement;
             * }}
             */
            CompactIncrement.create = function(properties) {
                return new CompactIncrement(properties);
            };

            /**
             * Encodes the specified CompactIncrement message. Does not implicitly {@link tributary.protocol.CompactIncrement.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.CompactIncrement
             * @static
             * @param {tributary.protocol.CompactIncrement.$Properties} message CompactIncrement message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            CompactIncrement.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.compactBefore != null && message.compactBefore.length)
                    for (let i = 0; i < message.compactBefore.length; ++i)
                        $root.tributary.protocol.DataFileMeta.encode(message.compactBefore[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.compactAfter != null && message.compactAfter.length)
                    for (let i = 0; i < message.compactAfter.length; ++i)
                        $root.tributary.protocol.DataFileMeta.encode(message.compactAfter[i], writer.uint32(/* id 2, wireType 2 =*/18).fork(), _depth + 1).ldelim();
                if (message.changelogFiles != null && message.changelogFiles.length)
                    for (let i = 0; i < message.changelogFiles.length; ++i)
                        $root.tributary.protocol.DataFileMeta.encode(message.changelogFiles[i], writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                if (message.newIndexFiles != null && message.newIndexFiles.length)
                    for (let i = 0; i < message.newIndexFiles.length; ++i)
                        $root.tributary.protocol.IndexFileMeta.encode(message.newIndexFiles[i], writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                if (message.deletedIndexFiles != null && message.deletedIndexFiles.length)
                    for (let i = 0; i < message.deletedIndexFiles.length; ++i)
                        $root.tributary.protocol.IndexFileMeta.encode(message.deletedIndexFiles[i], writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a CompactIncrement message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.CompactIncrement
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.CompactIncrement & tributary.protocol.CompactIncrement.$Shape} CompactIncrement
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            CompactIncrement.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.CompactIncrement();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.compactBefore && message.compactBefore.length))
                                message.compactBefore = [];
                            message.compactBefore.push($root.tributary.protocol.DataFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if (!(message.compactAfter && message.compactAfter.length))
                                message.compactAfter = [];
                            message.compactAfter.push($root.tributary.protocol.DataFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            if (!(message.changelogFiles && message.changelogFiles.length))
                                message.changelogFiles = [];
                            message.changelogFiles.push($root.tributary.protocol.DataFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if (!(message.newIndexFiles && message.newIndexFiles.length))
                                message.newIndexFiles = [];
                            message.newIndexFiles.push($root.tributary.protocol.IndexFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            if (!(message.deletedIndexFiles && message.deletedIndexFiles.length))
                                message.deletedIndexFiles = [];
                            message.deletedIndexFiles.push($root.tributary.protocol.IndexFileMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return CompactIncrement;
        })();

        protocol.DataFileMeta = (function() {

            /**
             * Properties of a DataFileMeta.
             * @typedef {Object} tributary.protocol.DataFileMeta.$Properties
             * @property {string} [fileName] DataFileMeta fileName
             * @property {Long} [fileSize] DataFileMeta fileSize
             * @property {Long} [rowCount] DataFileMeta rowCount
             * @property {Uint8Array} [minKey] DataFileMeta minKey
             * @property {Uint8Array} [maxKey] DataFileMeta maxKey
             * @property {tributary.protocol.SimpleStats.$Properties} [keyStats] DataFileMeta keyStats
             * @property {tributary.protocol.SimpleStats.$Properties} [valueStats] DataFileMeta valueStats
             * @property {Long} [minSequenceNumber] DataFileMeta minSequenceNumber
             * @property {Long} [maxSequenceNumber] DataFileMeta maxSequenceNumber
             * @property {Long} [schemaId] DataFileMeta schemaId
             * @property {number} [level] DataFileMeta level
             * @property {Array.<string>} [extraFiles] DataFileMeta extraFiles
             * @property {Long|null} [creationTimeMillis] DataFileMeta creationTimeMillis
             * @property {Long|null} [deleteRowCount] DataFileMeta deleteRowCount
             * @property {Uint8Array|null} [embeddedIndex] DataFileMeta embeddedIndex
             * @property {number|null} [fileSource] DataFileMeta fileSource
             * @property {tributary.protocol.StringList.$Properties} [valueStatsCols] DataFileMeta valueStatsCols
             * @property {string|null} [externalPath] DataFileMeta externalPath
             * @property {Long|null} [firstRowId] DataFileMeta firstRowId
             * @property {tributary.protocol.StringList.$Properties} [writeCols] DataFileMeta writeCols
             * @property {tributary.protocol.LongList.$Properties} [writeColsSequences] DataFileMeta writeColsSequences
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a DataFileMeta.
             * @memberof tributary.protocol
             * @interface IDataFileMeta
             * @augments tributary.protocol.DataFileMeta.$Properties
             * @deprecated Use tributary.protocol.DataFileMeta.$Properties instead.
             */

            /**
             * Shape of a DataFileMeta.
             * @typedef {tributary.protocol.DataFileMeta.$Properties} tributary.protocol.DataFileMeta.$Shape
             */

            /**
             * Constructs a new DataFileMeta.
             * @memberof tributary.protocol
             * @classdesc Represents a DataFileMeta.
             * @constructor
             * @param {tributary.protocol.DataFileMeta.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const DataFileMeta = function (properties) {
                this.extraFiles = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * DataFileMeta fileName.
             * @member {string} fileName
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.fileName = "";

            /**
             * DataFileMeta fileSize.
             * @member {Long} fileSize
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.fileSize = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * DataFileMeta rowCount.
             * @member {Long} rowCount
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.rowCount = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * DataFileMeta minKey.
             * @member {Uint8Array} minKey
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.minKey = $util.newBuffer([]);

            /**
             * DataFileMeta maxKey.
             * @member {Uint8Array} maxKey
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.maxKey = $util.newBuffer([]);

            /**
             * DataFileMeta keyStats.
             * @member {tributary.protocol.SimpleStats} keyStats
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.keyStats = null;

            /**
             * DataFileMeta valueStats.
             * @member {tributary.protocol.SimpleStats} valueStats
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.valueStats = null;

            /**
             * DataFileMeta minSequenceNumber.
             * @member {Long} minSequenceNumber
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.minSequenceNumber = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * DataFileMeta maxSequenceNumber.
             * @member {Long} maxSequenceNumber
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.maxSequenceNumber = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * DataFileMeta schemaId.
             * @member {Long} schemaId
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.schemaId = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * DataFileMeta level.
             * @member {number} level
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.level = 0;

            /**
             * DataFileMeta extraFiles.
             * @member {Array.<string>} extraFiles
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.extraFiles = $util.emptyArray;

            /**
             * DataFileMeta creationTimeMillis.
             * @member {Long|null} creationTimeMillis
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.creationTimeMillis = null;

            /**
             * DataFileMeta deleteRowCount.
             * @member {Long|null} deleteRowCount
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.deleteRowCount = null;

            /**
             * DataFileMeta embeddedIndex.
             * @member {Uint8Array|null} embeddedIndex
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.embeddedIndex = null;

            /**
             * DataFileMeta fileSource.
             * @member {number|null} fileSource
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.fileSource = null;

            /**
             * DataFileMeta valueStatsCols.
             * @member {tributary.protocol.StringList} valueStatsCols
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.valueStatsCols = null;

            /**
             * DataFileMeta externalPath.
             * @member {string|null} externalPath
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.externalPath = null;

            /**
             * DataFileMeta firstRowId.
             * @member {Long|null} firstRowId
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.firstRowId = null;

            /**
             * DataFileMeta writeCols.
             * @member {tributary.protocol.StringList} writeCols
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.writeCols = null;

            /**
             * DataFileMeta writeColsSequences.
             * @member {tributary.protocol.LongList} writeColsSequences
             * @memberof tributary.protocol.DataFileMeta
             * @instance
             */
            DataFileMeta.prototype.writeColsSequences = null;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(DataFileMeta.prototype, "_creationTimeMillis", {
                get: $util.oneOfGetter($oneOfFields = ["creationTimeMillis"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(DataFileMeta.prototype, "_deleteRowCount", {
                get: $util.oneOfGetter($oneOfFields = ["deleteRowCount"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(DataFileMeta.prototype, "_embeddedIndex", {
                get: $util.oneOfGetter($oneOfFields = ["embeddedIndex"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(DataFileMeta.prototype, "_fileSource", {
                get: $util.oneOfGetter($oneOfFields = ["fileSource"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(DataFileMeta.prototype, "_externalPath", {
                get: $util.oneOfGetter($oneOfFields = ["externalPath"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(DataFileMeta.prototype, "_firstRowId", {
                get: $util.oneOfGetter($oneOfFields = ["firstRowId"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new DataFileMeta instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.DataFileMeta
             * @static
             * @param {tributary.protocol.DataFileMeta.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.DataFileMeta} DataFileMeta instance
             * @type {{
             *   (properties: tributary.protocol.DataFileMeta.$Shape): tributary.protocol.DataFileMeta & tributary.protocol.DataFileMeta.$Shape;
             *   (properties?: tributary.protocol.DataFileMeta.$Properties): tributary.protocol.DataFileMeta;
             * }}
             */
            DataFileMeta.create = function(properties) {
                return new DataFileMeta(properties);
            };

            /**
             * Encodes the specified DataFileMeta message. Does not implicitly {@link tributary.protocol.DataFileMeta.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.DataFileMeta
             * @static
             * @param {tributary.protocol.DataFileMeta.$Properties} message DataFileMeta message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            DataFileMeta.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.fileName != null && $Object.hasOwnProperty.call(message, "fileName") && message.fileName !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.fileName);
                if (message.fileSize != null && $Object.hasOwnProperty.call(message, "fileSize") && (typeof message.fileSize === "object" ? message.fileSize.low || message.fileSize.high : message.fileSize !== 0))
                    writer.uint32(/* id 2, wireType 0 =*/16).int64(message.fileSize);
                if (message.rowCount != null && $Object.hasOwnProperty.call(message, "rowCount") && (typeof message.rowCount === "object" ? message.rowCount.low || message.rowCount.high : message.rowCount !== 0))
                    writer.uint32(/* id 3, wireType 0 =*/24).int64(message.rowCount);
                if (message.minKey != null && $Object.hasOwnProperty.call(message, "minKey") && message.minKey.length)
                    writer.uint32(/* id 4, wireType 2 =*/34).bytes(message.minKey);
                if (message.maxKey != null && $Object.hasOwnProperty.call(message, "maxKey") && message.maxKey.length)
                    writer.uint32(/* id 5, wireType 2 =*/42).bytes(message.maxKey);
                if (message.keyStats != null && $Object.hasOwnProperty.call(message, "keyStats"))
                    $root.tributary.protocol.SimpleStats.encode(message.keyStats, writer.uint32(/* id 6, wireType 2 =*/50).fork(), _depth + 1).ldelim();
                if (message.valueStats != null && $Object.hasOwnProperty.call(message, "valueStats"))
                    $root.tributary.protocol.SimpleStats.encode(message.valueStats, writer.uint32(/* id 7, wireType 2 =*/58).fork(), _depth + 1).ldelim();
                if (message.minSequenceNumber != null && $Object.hasOwnProperty.call(message, "minSequenceNumber") && (typeof message.minSequenceNumber === "object" ? message.minSequenceNumber.low || message.minSequenceNumber.high : message.minSequenceNumber !== 0))
                    writer.uint32(/* id 8, wireType 0 =*/64).int64(message.minSequenceNumber);
                if (message.maxSequenceNumber != null && $Object.hasOwnProperty.call(message, "maxSequenceNumber") && (typeof message.maxSequenceNumber === "object" ? message.maxSequenceNumber.low || message.maxSequenceNumber.high : message.maxSequenceNumber !== 0))
                    writer.uint32(/* id 9, wireType 0 =*/72).int64(message.maxSequenceNumber);
                if (message.schemaId != null && $Object.hasOwnProperty.call(message, "schemaId") && (typeof message.schemaId === "object" ? message.schemaId.low || message.schemaId.high : message.schemaId !== 0))
                    writer.uint32(/* id 10, wireType 0 =*/80).int64(message.schemaId);
                if (message.level != null && $Object.hasOwnProperty.call(message, "level") && message.level !== 0)
                    writer.uint32(/* id 11, wireType 0 =*/88).sint32(message.level);
                if (message.extraFiles != null && message.extraFiles.length)
                    for (let i = 0; i < message.extraFiles.length; ++i)
                        writer.uint32(/* id 12, wireType 2 =*/98).string(message.extraFiles[i]);
                if (message.creationTimeMillis != null && $Object.hasOwnProperty.call(message, "creationTimeMillis"))
                    writer.uint32(/* id 13, wireType 0 =*/104).int64(message.creationTimeMillis);
                if (message.deleteRowCount != null && $Object.hasOwnProperty.call(message, "deleteRowCount"))
                    writer.uint32(/* id 14, wireType 0 =*/112).int64(message.deleteRowCount);
                if (message.embeddedIndex != null && $Object.hasOwnProperty.call(message, "embeddedIndex"))
                    writer.uint32(/* id 15, wireType 2 =*/122).bytes(message.embeddedIndex);
                if (message.fileSource != null && $Object.hasOwnProperty.call(message, "fileSource"))
                    writer.uint32(/* id 16, wireType 0 =*/128).int32(message.fileSource);
                if (message.valueStatsCols != null && $Object.hasOwnProperty.call(message, "valueStatsCols"))
                    $root.tributary.protocol.StringList.encode(message.valueStatsCols, writer.uint32(/* id 17, wireType 2 =*/138).fork(), _depth + 1).ldelim();
                if (message.externalPath != null && $Object.hasOwnProperty.call(message, "externalPath"))
                    writer.uint32(/* id 18, wireType 2 =*/146).string(message.externalPath);
                if (message.firstRowId != null && $Object.hasOwnProperty.call(message, "firstRowId"))
                    writer.uint32(/* id 19, wireType 0 =*/152).int64(message.firstRowId);
                if (message.writeCols != null && $Object.hasOwnProperty.call(message, "writeCols"))
                    $root.tributary.protocol.StringList.encode(message.writeCols, writer.uint32(/* id 20, wireType 2 =*/162).fork(), _depth + 1).ldelim();
                if (message.writeColsSequences != null && $Object.hasOwnProperty.call(message, "writeColsSequences"))
                    $root.tributary.protocol.LongList.encode(message.writeColsSequences, writer.uint32(/* id 21, wireType 2 =*/170).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a DataFileMeta message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.DataFileMeta
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.DataFileMeta & tributary.protocol.DataFileMeta.$Shape} DataFileMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            DataFileMeta.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.DataFileMeta();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.fileName = value;
                            else
                                delete message.fileName;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.fileSize = value;
                            else
                                delete message.fileSize;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.rowCount = value;
                            else
                                delete message.rowCount;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.minKey = value;
                            else
                                delete message.minKey;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.maxKey = value;
                            else
                                delete message.maxKey;
                            continue;
                        }
                    case 6: {
                            if (wireType !== 2)
                                break;
                            message.keyStats = $root.tributary.protocol.SimpleStats.decode(reader, reader.size(), $undefined, _depth + 1, message.keyStats);
                            continue;
                        }
                    case 7: {
                            if (wireType !== 2)
                                break;
                            message.valueStats = $root.tributary.protocol.SimpleStats.decode(reader, reader.size(), $undefined, _depth + 1, message.valueStats);
                            continue;
                        }
                    case 8: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.minSequenceNumber = value;
                            else
                                delete message.minSequenceNumber;
                            continue;
                        }
                    case 9: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.maxSequenceNumber = value;
                            else
                                delete message.maxSequenceNumber;
                            continue;
                        }
                    case 10: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.schemaId = value;
                            else
                                delete message.schemaId;
                            continue;
                        }
                    case 11: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.sint32())
                                message.level = value;
                            else
                                delete message.level;
                            continue;
                        }
                    case 12: {
                            if (wireType !== 2)
                                break;
                            if (!(message.extraFiles && message.extraFiles.length))
                                message.extraFiles = [];
                            message.extraFiles.push(reader.stringVerify());
                            continue;
                        }
                    case 13: {
                            if (wireType !== 0)
                                break;
                            message.creationTimeMillis = reader.int64();
                            message._creationTimeMillis = "creationTimeMillis";
                            continue;
                        }
                    case 14: {
                            if (wireType !== 0)
                                break;
                            message.deleteRowCount = reader.int64();
                            message._deleteRowCount = "deleteRowCount";
                            continue;
                        }
                    case 15: {
                            if (wireType !== 2)
                                break;
                            message.embeddedIndex = reader.bytes();
                            message._embeddedIndex = "embeddedIndex";
                            continue;
                        }
                    case 16: {
                            if (wireType !== 0)
                                break;
                            message.fileSource = reader.int32();
                            message._fileSource = "fileSource";
                            continue;
                        }
                    case 17: {
                            if (wireType !== 2)
                                break;
                            message.valueStatsCols = $root.tributary.protocol.StringList.decode(reader, reader.size(), $undefined, _depth + 1, message.valueStatsCols);
                            continue;
                        }
                    case 18: {
                            if (wireType !== 2)
                                break;
                            message.externalPath = reader.stringVerify();
                            message._externalPath = "externalPath";
                            continue;
                        }
                    case 19: {
                            if (wireType !== 0)
                                break;
                            message.firstRowId = reader.int64();
                            message._firstRowId = "firstRowId";
                            continue;
                        }
                    case 20: {
                            if (wireType !== 2)
                                break;
                            message.writeCols = $root.tributary.protocol.StringList.decode(reader, reader.size(), $undefined, _depth + 1, message.writeCols);
                            continue;
                        }
                    case 21: {
                            if (wireType !== 2)
                                break;
                            message.writeColsSequences = $root.tributary.protocol.LongList.decode(reader, reader.size(), $undefined, _depth + 1, message.writeColsSequences);
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return DataFileMeta;
        })();

        protocol.SimpleStats = (function() {

            /**
             * Properties of a SimpleStats.
             * @typedef {Object} tributary.protocol.SimpleStats.$Properties
             * @property {Uint8Array} [minValues] SimpleStats minValues
             * @property {Uint8Array} [maxValues] SimpleStats maxValues
             * @property {tributary.protocol.NullCounts.$Properties} [nullCounts] SimpleStats nullCounts
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a SimpleStats.
             * @memberof tributary.protocol
             * @interface ISimpleStats
             * @augments tributary.protocol.SimpleStats.$Properties
             * @deprecated Use tributary.protocol.SimpleStats.$Properties instead.
             */

            /**
             * Shape of a SimpleStats.
             * @typedef {tributary.protocol.SimpleStats.$Properties} tributary.protocol.SimpleStats.$Shape
             */

            /**
             * Constructs a new SimpleStats.
             * @memberof tributary.protocol
             * @classdesc Represents a SimpleStats.
             * @constructor
             * @param {tributary.protocol.SimpleStats.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const SimpleStats = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * SimpleStats minValues.
             * @member {Uint8Array} minValues
             * @memberof tributary.protocol.SimpleStats
             * @instance
             */
            SimpleStats.prototype.minValues = $util.newBuffer([]);

            /**
             * SimpleStats maxValues.
             * @member {Uint8Array} maxValues
             * @memberof tributary.protocol.SimpleStats
             * @instance
             */
            SimpleStats.prototype.maxValues = $util.newBuffer([]);

            /**
             * SimpleStats nullCounts.
             * @member {tributary.protocol.NullCounts} nullCounts
             * @memberof tributary.protocol.SimpleStats
             * @instance
             */
            SimpleStats.prototype.nullCounts = null;

            /**
             * Creates a new SimpleStats instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.SimpleStats
             * @static
             * @param {tributary.protocol.SimpleStats.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.SimpleStats} SimpleStats instance
             * @type {{
             *   (properties: tributary.protocol.SimpleStats.$Shape): tributary.protocol.SimpleStats & tributary.protocol.SimpleStats.$Shape;
             *   (properties?: tributary.protocol.SimpleStats.$Properties): tributary.protocol.SimpleStats;
             * }}
             */
            SimpleStats.create = function(properties) {
                return new SimpleStats(properties);
            };

            /**
             * Encodes the specified SimpleStats message. Does not implicitly {@link tributary.protocol.SimpleStats.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.SimpleStats
             * @static
             * @param {tributary.protocol.SimpleStats.$Properties} message SimpleStats message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            SimpleStats.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.minValues != null && $Object.hasOwnProperty.call(message, "minValues") && message.minValues.length)
                    writer.uint32(/* id 1, wireType 2 =*/10).bytes(message.minValues);
                if (message.maxValues != null && $Object.hasOwnProperty.call(message, "maxValues") && message.maxValues.length)
                    writer.uint32(/* id 2, wireType 2 =*/18).bytes(message.maxValues);
                if (message.nullCounts != null && $Object.hasOwnProperty.call(message, "nullCounts"))
                    $root.tributary.protocol.NullCounts.encode(message.nullCounts, writer.uint32(/* id 3, wireType 2 =*/26).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a SimpleStats message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.SimpleStats
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.SimpleStats & tributary.protocol.SimpleStats.$Shape} SimpleStats
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            SimpleStats.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.SimpleStats();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.minValues = value;
                            else
                                delete message.minValues;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.bytes()).length)
                                message.maxValues = value;
                            else
                                delete message.maxValues;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 2)
                                break;
                            message.nullCounts = $root.tributary.protocol.NullCounts.decode(reader, reader.size(), $undefined, _depth + 1, message.nullCounts);
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return SimpleStats;
        })();

        protocol.NullCounts = (function() {

            /**
             * Properties of a NullCounts.
             * @typedef {Object} tributary.protocol.NullCounts.$Properties
             * @property {Array.<Long>} [values] NullCounts values
             * @property {Array.<number>} [nullIndexes] NullCounts nullIndexes
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a NullCounts.
             * @memberof tributary.protocol
             * @interface INullCounts
             * @augments tributary.protocol.NullCounts.$Properties
             * @deprecated Use tributary.protocol.NullCounts.$Properties instead.
             */

            /**
             * Shape of a NullCounts.
             * @typedef {tributary.protocol.NullCounts.$Properties} tributary.protocol.NullCounts.$Shape
             */

            /**
             * Constructs a new NullCounts.
             * @memberof tributary.protocol
             * @classdesc Represents a NullCounts.
             * @constructor
             * @param {tributary.protocol.NullCounts.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const NullCounts = function (properties) {
                this.values = [];
                this.nullIndexes = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * NullCounts values.
             * @member {Array.<Long>} values
             * @memberof tributary.protocol.NullCounts
             * @instance
             */
            NullCounts.prototype.values = $util.emptyArray;

            /**
             * NullCounts nullIndexes.
             * @member {Array.<number>} nullIndexes
             * @memberof tributary.protocol.NullCounts
             * @instance
             */
            NullCounts.prototype.nullIndexes = $util.emptyArray;

            /**
             * Creates a new NullCounts instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.NullCounts
             * @static
             * @param {tributary.protocol.NullCounts.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.NullCounts} NullCounts instance
             * @type {{
             *   (properties: tributary.protocol.NullCounts.$Shape): tributary.protocol.NullCounts & tributary.protocol.NullCounts.$Shape;
             *   (properties?: tributary.protocol.NullCounts.$Properties): tributary.protocol.NullCounts;
             * }}
             */
            NullCounts.create = function(properties) {
                return new NullCounts(properties);
            };

            /**
             * Encodes the specified NullCounts message. Does not implicitly {@link tributary.protocol.NullCounts.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.NullCounts
             * @static
             * @param {tributary.protocol.NullCounts.$Properties} message NullCounts message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            NullCounts.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.values != null && message.values.length)
                    writer.uint32(/* id 1, wireType 2 =*/10).int64s(message.values);
                if (message.nullIndexes != null && message.nullIndexes.length)
                    writer.uint32(/* id 2, wireType 2 =*/18).uint32s(message.nullIndexes);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a NullCounts message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.NullCounts
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.NullCounts & tributary.protocol.NullCounts.$Shape} NullCounts
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            NullCounts.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.NullCounts();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType === 2) {
                                if (!(message.values && message.values.length))
                                    message.values = [];
                                reader.int64s(message.values);
                                continue;
                            }
                            if (wireType !== 0)
                                break;
                            if (!(message.values && message.values.length))
                                message.values = [];
                            message.values.push(reader.int64());
                            continue;
                        }
                    case 2: {
                            if (wireType === 2) {
                                if (!(message.nullIndexes && message.nullIndexes.length))
                                    message.nullIndexes = [];
                                reader.uint32s(message.nullIndexes);
                                continue;
                            }
                            if (wireType !== 0)
                                break;
                            if (!(message.nullIndexes && message.nullIndexes.length))
                                message.nullIndexes = [];
                            message.nullIndexes.push(reader.uint32());
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return NullCounts;
        })();

        protocol.StringList = (function() {

            /**
             * Properties of a StringList.
             * @typedef {Object} tributary.protocol.StringList.$Properties
             * @property {Array.<string>} [values] StringList values
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a StringList.
             * @memberof tributary.protocol
             * @interface IStringList
             * @augments tributary.protocol.StringList.$Properties
             * @deprecated Use tributary.protocol.StringList.$Properties instead.
             */

            /**
             * Shape of a StringList.
             * @typedef {tributary.protocol.StringList.$Properties} tributary.protocol.StringList.$Shape
             */

            /**
             * Constructs a new StringList.
             * @memberof tributary.protocol
             * @classdesc Represents a StringList.
             * @constructor
             * @param {tributary.protocol.StringList.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const StringList = function (properties) {
                this.values = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * StringList values.
             * @member {Array.<string>} values
             * @memberof tributary.protocol.StringList
             * @instance
             */
            StringList.prototype.values = $util.emptyArray;

            /**
             * Creates a new StringList instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.StringList
             * @static
             * @param {tributary.protocol.StringList.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.StringList} StringList instance
             * @type {{
             *   (properties: tributary.protocol.StringList.$Shape): tributary.protocol.StringList & tributary.protocol.StringList.$Shape;
             *   (properties?: tributary.protocol.StringList.$Properties): tributary.protocol.StringList;
             * }}
             */
            StringList.create = function(properties) {
                return new StringList(properties);
            };

            /**
             * Encodes the specified StringList message. Does not implicitly {@link tributary.protocol.StringList.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.StringList
             * @static
             * @param {tributary.protocol.StringList.$Properties} message StringList message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            StringList.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.values != null && message.values.length)
                    for (let i = 0; i < message.values.length; ++i)
                        writer.uint32(/* id 1, wireType 2 =*/10).string(message.values[i]);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a StringList message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.StringList
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.StringList & tributary.protocol.StringList.$Shape} StringList
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            StringList.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.StringList();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.values && message.values.length))
                                message.values = [];
                            message.values.push(reader.stringVerify());
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return StringList;
        })();

        protocol.LongList = (function() {

            /**
             * Properties of a LongList.
             * @typedef {Object} tributary.protocol.LongList.$Properties
             * @property {Array.<Long>} [values] LongList values
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a LongList.
             * @memberof tributary.protocol
             * @interface ILongList
             * @augments tributary.protocol.LongList.$Properties
             * @deprecated Use tributary.protocol.LongList.$Properties instead.
             */

            /**
             * Shape of a LongList.
             * @typedef {tributary.protocol.LongList.$Properties} tributary.protocol.LongList.$Shape
             */

            /**
             * Constructs a new LongList.
             * @memberof tributary.protocol
             * @classdesc Represents a LongList.
             * @constructor
             * @param {tributary.protocol.LongList.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const LongList = function (properties) {
                this.values = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * LongList values.
             * @member {Array.<Long>} values
             * @memberof tributary.protocol.LongList
             * @instance
             */
            LongList.prototype.values = $util.emptyArray;

            /**
             * Creates a new LongList instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.LongList
             * @static
             * @param {tributary.protocol.LongList.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.LongList} LongList instance
             * @type {{
             *   (properties: tributary.protocol.LongList.$Shape): tributary.protocol.LongList & tributary.protocol.LongList.$Shape;
             *   (properties?: tributary.protocol.LongList.$Properties): tributary.protocol.LongList;
             * }}
             */
            LongList.create = function(properties) {
                return new LongList(properties);
            };

            /**
             * Encodes the specified LongList message. Does not implicitly {@link tributary.protocol.LongList.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.LongList
             * @static
             * @param {tributary.protocol.LongList.$Properties} message LongList message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            LongList.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.values != null && message.values.length)
                    writer.uint32(/* id 1, wireType 2 =*/10).int64s(message.values);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a LongList message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.LongList
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.LongList & tributary.protocol.LongList.$Shape} LongList
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            LongList.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.LongList();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType === 2) {
                                if (!(message.values && message.values.length))
                                    message.values = [];
                                reader.int64s(message.values);
                                continue;
                            }
                            if (wireType !== 0)
                                break;
                            if (!(message.values && message.values.length))
                                message.values = [];
                            message.values.push(reader.int64());
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return LongList;
        })();

        protocol.IndexFileMeta = (function() {

            /**
             * Properties of an IndexFileMeta.
             * @typedef {Object} tributary.protocol.IndexFileMeta.$Properties
             * @property {string} [indexType] IndexFileMeta indexType
             * @property {string} [fileName] IndexFileMeta fileName
             * @property {Long} [fileSize] IndexFileMeta fileSize
             * @property {Long} [rowCount] IndexFileMeta rowCount
             * @property {tributary.protocol.DeletionVectorRanges.$Properties} [deletionVectorRanges] IndexFileMeta deletionVectorRanges
             * @property {string|null} [externalPath] IndexFileMeta externalPath
             * @property {tributary.protocol.GlobalIndexMeta.$Properties} [globalIndex] IndexFileMeta globalIndex
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an IndexFileMeta.
             * @memberof tributary.protocol
             * @interface IIndexFileMeta
             * @augments tributary.protocol.IndexFileMeta.$Properties
             * @deprecated Use tributary.protocol.IndexFileMeta.$Properties instead.
             */

            /**
             * Shape of an IndexFileMeta.
             * @typedef {tributary.protocol.IndexFileMeta.$Properties} tributary.protocol.IndexFileMeta.$Shape
             */

            /**
             * Constructs a new IndexFileMeta.
             * @memberof tributary.protocol
             * @classdesc Represents an IndexFileMeta.
             * @constructor
             * @param {tributary.protocol.IndexFileMeta.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const IndexFileMeta = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * IndexFileMeta indexType.
             * @member {string} indexType
             * @memberof tributary.protocol.IndexFileMeta
             * @instance
             */
            IndexFileMeta.prototype.indexType = "";

            /**
             * IndexFileMeta fileName.
             * @member {string} fileName
             * @memberof tributary.protocol.IndexFileMeta
             * @instance
             */
            IndexFileMeta.prototype.fileName = "";

            /**
             * IndexFileMeta fileSize.
             * @member {Long} fileSize
             * @memberof tributary.protocol.IndexFileMeta
             * @instance
             */
            IndexFileMeta.prototype.fileSize = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * IndexFileMeta rowCount.
             * @member {Long} rowCount
             * @memberof tributary.protocol.IndexFileMeta
             * @instance
             */
            IndexFileMeta.prototype.rowCount = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * IndexFileMeta deletionVectorRanges.
             * @member {tributary.protocol.DeletionVectorRanges} deletionVectorRanges
             * @memberof tributary.protocol.IndexFileMeta
             * @instance
             */
            IndexFileMeta.prototype.deletionVectorRanges = null;

            /**
             * IndexFileMeta externalPath.
             * @member {string|null} externalPath
             * @memberof tributary.protocol.IndexFileMeta
             * @instance
             */
            IndexFileMeta.prototype.externalPath = null;

            /**
             * IndexFileMeta globalIndex.
             * @member {tributary.protocol.GlobalIndexMeta} globalIndex
             * @memberof tributary.protocol.IndexFileMeta
             * @instance
             */
            IndexFileMeta.prototype.globalIndex = null;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(IndexFileMeta.prototype, "_externalPath", {
                get: $util.oneOfGetter($oneOfFields = ["externalPath"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new IndexFileMeta instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.IndexFileMeta
             * @static
             * @param {tributary.protocol.IndexFileMeta.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.IndexFileMeta} IndexFileMeta instance
             * @type {{
             *   (properties: tributary.protocol.IndexFileMeta.$Shape): tributary.protocol.IndexFileMeta & tributary.protocol.IndexFileMeta.$Shape;
             *   (properties?: tributary.protocol.IndexFileMeta.$Properties): tributary.protocol.IndexFileMeta;
             * }}
             */
            IndexFileMeta.create = function(properties) {
                return new IndexFileMeta(properties);
            };

            /**
             * Encodes the specified IndexFileMeta message. Does not implicitly {@link tributary.protocol.IndexFileMeta.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.IndexFileMeta
             * @static
             * @param {tributary.protocol.IndexFileMeta.$Properties} message IndexFileMeta message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            IndexFileMeta.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.indexType != null && $Object.hasOwnProperty.call(message, "indexType") && message.indexType !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.indexType);
                if (message.fileName != null && $Object.hasOwnProperty.call(message, "fileName") && message.fileName !== "")
                    writer.uint32(/* id 2, wireType 2 =*/18).string(message.fileName);
                if (message.fileSize != null && $Object.hasOwnProperty.call(message, "fileSize") && (typeof message.fileSize === "object" ? message.fileSize.low || message.fileSize.high : message.fileSize !== 0))
                    writer.uint32(/* id 3, wireType 0 =*/24).int64(message.fileSize);
                if (message.rowCount != null && $Object.hasOwnProperty.call(message, "rowCount") && (typeof message.rowCount === "object" ? message.rowCount.low || message.rowCount.high : message.rowCount !== 0))
                    writer.uint32(/* id 4, wireType 0 =*/32).int64(message.rowCount);
                if (message.deletionVectorRanges != null && $Object.hasOwnProperty.call(message, "deletionVectorRanges"))
                    $root.tributary.protocol.DeletionVectorRanges.encode(message.deletionVectorRanges, writer.uint32(/* id 5, wireType 2 =*/42).fork(), _depth + 1).ldelim();
                if (message.externalPath != null && $Object.hasOwnProperty.call(message, "externalPath"))
                    writer.uint32(/* id 6, wireType 2 =*/50).string(message.externalPath);
                if (message.globalIndex != null && $Object.hasOwnProperty.call(message, "globalIndex"))
                    $root.tributary.protocol.GlobalIndexMeta.encode(message.globalIndex, writer.uint32(/* id 7, wireType 2 =*/58).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an IndexFileMeta message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.IndexFileMeta
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.IndexFileMeta & tributary.protocol.IndexFileMeta.$Shape} IndexFileMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            IndexFileMeta.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.IndexFileMeta();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.indexType = value;
                            else
                                delete message.indexType;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.fileName = value;
                            else
                                delete message.fileName;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.fileSize = value;
                            else
                                delete message.fileSize;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.rowCount = value;
                            else
                                delete message.rowCount;
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            message.deletionVectorRanges = $root.tributary.protocol.DeletionVectorRanges.decode(reader, reader.size(), $undefined, _depth + 1, message.deletionVectorRanges);
                            continue;
                        }
                    case 6: {
                            if (wireType !== 2)
                                break;
                            message.externalPath = reader.stringVerify();
                            message._externalPath = "externalPath";
                            continue;
                        }
                    case 7: {
                            if (wireType !== 2)
                                break;
                            message.globalIndex = $root.tributary.protocol.GlobalIndexMeta.decode(reader, reader.size(), $undefined, _depth + 1, message.globalIndex);
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return IndexFileMeta;
        })();

        protocol.DeletionVectorRanges = (function() {

            /**
             * Properties of a DeletionVectorRanges.
             * @typedef {Object} tributary.protocol.DeletionVectorRanges.$Properties
             * @property {Array.<tributary.protocol.DeletionVectorMeta.$Properties>} [values] DeletionVectorRanges values
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a DeletionVectorRanges.
             * @memberof tributary.protocol
             * @interface IDeletionVectorRanges
             * @augments tributary.protocol.DeletionVectorRanges.$Properties
             * @deprecated Use tributary.protocol.DeletionVectorRanges.$Properties instead.
             */

            /**
             * Shape of a DeletionVectorRanges.
             * @typedef {tributary.protocol.DeletionVectorRanges.$Properties} tributary.protocol.DeletionVectorRanges.$Shape
             */

            /**
             * Constructs a new DeletionVectorRanges.
             * @memberof tributary.protocol
             * @classdesc Represents a DeletionVectorRanges.
             * @constructor
             * @param {tributary.protocol.DeletionVectorRanges.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const DeletionVectorRanges = function (properties) {
                this.values = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * DeletionVectorRanges values.
             * @member {Array.<tributary.protocol.DeletionVectorMeta>} values
             * @memberof tributary.protocol.DeletionVectorRanges
             * @instance
             */
            DeletionVectorRanges.prototype.values = $util.emptyArray;

            /**
             * Creates a new DeletionVectorRanges instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.DeletionVectorRanges
             * @static
             * @param {tributary.protocol.DeletionVectorRanges.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.DeletionVectorRanges} DeletionVectorRanges instance
             * @type {{
             *   (properties: tributary.protocol.DeletionVectorRanges.$Shape): tributary.protocol.DeletionVectorRanges & tributary.protocol.DeletionVectorRanges.$Shape;
             *   (properties?: tributary.protocol.DeletionVectorRanges.$Properties): tributary.protocol.DeletionVectorRanges;
             * }}
             */
            DeletionVectorRanges.create = function(properties) {
                return new DeletionVectorRanges(properties);
            };

            /**
             * Encodes the specified DeletionVectorRanges message. Does not implicitly {@link tributary.protocol.DeletionVectorRanges.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.DeletionVectorRanges
             * @static
             * @param {tributary.protocol.DeletionVectorRanges.$Properties} message DeletionVectorRanges message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            DeletionVectorRanges.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.values != null && message.values.length)
                    for (let i = 0; i < message.values.length; ++i)
                        $root.tributary.protocol.DeletionVectorMeta.encode(message.values[i], writer.uint32(/* id 1, wireType 2 =*/10).fork(), _depth + 1).ldelim();
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a DeletionVectorRanges message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.DeletionVectorRanges
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.DeletionVectorRanges & tributary.protocol.DeletionVectorRanges.$Shape} DeletionVectorRanges
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            DeletionVectorRanges.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.DeletionVectorRanges();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if (!(message.values && message.values.length))
                                message.values = [];
                            message.values.push($root.tributary.protocol.DeletionVectorMeta.decode(reader, reader.size(), $undefined, _depth + 1));
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return DeletionVectorRanges;
        })();

        protocol.DeletionVectorMeta = (function() {

            /**
             * Properties of a DeletionVectorMeta.
             * @typedef {Object} tributary.protocol.DeletionVectorMeta.$Properties
             * @property {string} [dataFileName] DeletionVectorMeta dataFileName
             * @property {number} [offset] DeletionVectorMeta offset
             * @property {number} [length] DeletionVectorMeta length
             * @property {Long|null} [cardinality] DeletionVectorMeta cardinality
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a DeletionVectorMeta.
             * @memberof tributary.protocol
             * @interface IDeletionVectorMeta
             * @augments tributary.protocol.DeletionVectorMeta.$Properties
             * @deprecated Use tributary.protocol.DeletionVectorMeta.$Properties instead.
             */

            /**
             * Shape of a DeletionVectorMeta.
             * @typedef {tributary.protocol.DeletionVectorMeta.$Properties} tributary.protocol.DeletionVectorMeta.$Shape
             */

            /**
             * Constructs a new DeletionVectorMeta.
             * @memberof tributary.protocol
             * @classdesc Represents a DeletionVectorMeta.
             * @constructor
             * @param {tributary.protocol.DeletionVectorMeta.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const DeletionVectorMeta = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * DeletionVectorMeta dataFileName.
             * @member {string} dataFileName
             * @memberof tributary.protocol.DeletionVectorMeta
             * @instance
             */
            DeletionVectorMeta.prototype.dataFileName = "";

            /**
             * DeletionVectorMeta offset.
             * @member {number} offset
             * @memberof tributary.protocol.DeletionVectorMeta
             * @instance
             */
            DeletionVectorMeta.prototype.offset = 0;

            /**
             * DeletionVectorMeta length.
             * @member {number} length
             * @memberof tributary.protocol.DeletionVectorMeta
             * @instance
             */
            DeletionVectorMeta.prototype.length = 0;

            /**
             * DeletionVectorMeta cardinality.
             * @member {Long|null} cardinality
             * @memberof tributary.protocol.DeletionVectorMeta
             * @instance
             */
            DeletionVectorMeta.prototype.cardinality = null;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(DeletionVectorMeta.prototype, "_cardinality", {
                get: $util.oneOfGetter($oneOfFields = ["cardinality"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new DeletionVectorMeta instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.DeletionVectorMeta
             * @static
             * @param {tributary.protocol.DeletionVectorMeta.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.DeletionVectorMeta} DeletionVectorMeta instance
             * @type {{
             *   (properties: tributary.protocol.DeletionVectorMeta.$Shape): tributary.protocol.DeletionVectorMeta & tributary.protocol.DeletionVectorMeta.$Shape;
             *   (properties?: tributary.protocol.DeletionVectorMeta.$Properties): tributary.protocol.DeletionVectorMeta;
             * }}
             */
            DeletionVectorMeta.create = function(properties) {
                return new DeletionVectorMeta(properties);
            };

            /**
             * Encodes the specified DeletionVectorMeta message. Does not implicitly {@link tributary.protocol.DeletionVectorMeta.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.DeletionVectorMeta
             * @static
             * @param {tributary.protocol.DeletionVectorMeta.$Properties} message DeletionVectorMeta message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            DeletionVectorMeta.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.dataFileName != null && $Object.hasOwnProperty.call(message, "dataFileName") && message.dataFileName !== "")
                    writer.uint32(/* id 1, wireType 2 =*/10).string(message.dataFileName);
                if (message.offset != null && $Object.hasOwnProperty.call(message, "offset") && message.offset !== 0)
                    writer.uint32(/* id 2, wireType 0 =*/16).int32(message.offset);
                if (message.length != null && $Object.hasOwnProperty.call(message, "length") && message.length !== 0)
                    writer.uint32(/* id 3, wireType 0 =*/24).int32(message.length);
                if (message.cardinality != null && $Object.hasOwnProperty.call(message, "cardinality"))
                    writer.uint32(/* id 4, wireType 0 =*/32).int64(message.cardinality);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a DeletionVectorMeta message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.DeletionVectorMeta
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.DeletionVectorMeta & tributary.protocol.DeletionVectorMeta.$Shape} DeletionVectorMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            DeletionVectorMeta.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.DeletionVectorMeta();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 2)
                                break;
                            if ((value = reader.stringVerify()).length)
                                message.dataFileName = value;
                            else
                                delete message.dataFileName;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.int32())
                                message.offset = value;
                            else
                                delete message.offset;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.int32())
                                message.length = value;
                            else
                                delete message.length;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 0)
                                break;
                            message.cardinality = reader.int64();
                            message._cardinality = "cardinality";
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return DeletionVectorMeta;
        })();

        protocol.GlobalIndexMeta = (function() {

            /**
             * Properties of a GlobalIndexMeta.
             * @typedef {Object} tributary.protocol.GlobalIndexMeta.$Properties
             * @property {Long} [rowRangeStart] GlobalIndexMeta rowRangeStart
             * @property {Long} [rowRangeEnd] GlobalIndexMeta rowRangeEnd
             * @property {number} [indexFieldId] GlobalIndexMeta indexFieldId
             * @property {tributary.protocol.IntList.$Properties} [extraFieldIds] GlobalIndexMeta extraFieldIds
             * @property {Uint8Array|null} [indexMeta] GlobalIndexMeta indexMeta
             * @property {Uint8Array|null} [sourceMeta] GlobalIndexMeta sourceMeta
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of a GlobalIndexMeta.
             * @memberof tributary.protocol
             * @interface IGlobalIndexMeta
             * @augments tributary.protocol.GlobalIndexMeta.$Properties
             * @deprecated Use tributary.protocol.GlobalIndexMeta.$Properties instead.
             */

            /**
             * Shape of a GlobalIndexMeta.
             * @typedef {tributary.protocol.GlobalIndexMeta.$Properties} tributary.protocol.GlobalIndexMeta.$Shape
             */

            /**
             * Constructs a new GlobalIndexMeta.
             * @memberof tributary.protocol
             * @classdesc Represents a GlobalIndexMeta.
             * @constructor
             * @param {tributary.protocol.GlobalIndexMeta.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const GlobalIndexMeta = function (properties) {
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * GlobalIndexMeta rowRangeStart.
             * @member {Long} rowRangeStart
             * @memberof tributary.protocol.GlobalIndexMeta
             * @instance
             */
            GlobalIndexMeta.prototype.rowRangeStart = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * GlobalIndexMeta rowRangeEnd.
             * @member {Long} rowRangeEnd
             * @memberof tributary.protocol.GlobalIndexMeta
             * @instance
             */
            GlobalIndexMeta.prototype.rowRangeEnd = $util.Long ? $util.Long.fromBits(0,0,false) : 0;

            /**
             * GlobalIndexMeta indexFieldId.
             * @member {number} indexFieldId
             * @memberof tributary.protocol.GlobalIndexMeta
             * @instance
             */
            GlobalIndexMeta.prototype.indexFieldId = 0;

            /**
             * GlobalIndexMeta extraFieldIds.
             * @member {tributary.protocol.IntList} extraFieldIds
             * @memberof tributary.protocol.GlobalIndexMeta
             * @instance
             */
            GlobalIndexMeta.prototype.extraFieldIds = null;

            /**
             * GlobalIndexMeta indexMeta.
             * @member {Uint8Array|null} indexMeta
             * @memberof tributary.protocol.GlobalIndexMeta
             * @instance
             */
            GlobalIndexMeta.prototype.indexMeta = null;

            /**
             * GlobalIndexMeta sourceMeta.
             * @member {Uint8Array|null} sourceMeta
             * @memberof tributary.protocol.GlobalIndexMeta
             * @instance
             */
            GlobalIndexMeta.prototype.sourceMeta = null;

            // OneOf field names bound to virtual getters and setters
            let $oneOfFields;

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(GlobalIndexMeta.prototype, "_indexMeta", {
                get: $util.oneOfGetter($oneOfFields = ["indexMeta"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            // Virtual OneOf for proto3 optional field
            $Object.defineProperty(GlobalIndexMeta.prototype, "_sourceMeta", {
                get: $util.oneOfGetter($oneOfFields = ["sourceMeta"]),
                set: $util.oneOfSetter($oneOfFields)
            });

            /**
             * Creates a new GlobalIndexMeta instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.GlobalIndexMeta
             * @static
             * @param {tributary.protocol.GlobalIndexMeta.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.GlobalIndexMeta} GlobalIndexMeta instance
             * @type {{
             *   (properties: tributary.protocol.GlobalIndexMeta.$Shape): tributary.protocol.GlobalIndexMeta & tributary.protocol.GlobalIndexMeta.$Shape;
             *   (properties?: tributary.protocol.GlobalIndexMeta.$Properties): tributary.protocol.GlobalIndexMeta;
             * }}
             */
            GlobalIndexMeta.create = function(properties) {
                return new GlobalIndexMeta(properties);
            };

            /**
             * Encodes the specified GlobalIndexMeta message. Does not implicitly {@link tributary.protocol.GlobalIndexMeta.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.GlobalIndexMeta
             * @static
             * @param {tributary.protocol.GlobalIndexMeta.$Properties} message GlobalIndexMeta message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            GlobalIndexMeta.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.rowRangeStart != null && $Object.hasOwnProperty.call(message, "rowRangeStart") && (typeof message.rowRangeStart === "object" ? message.rowRangeStart.low || message.rowRangeStart.high : message.rowRangeStart !== 0))
                    writer.uint32(/* id 1, wireType 0 =*/8).int64(message.rowRangeStart);
                if (message.rowRangeEnd != null && $Object.hasOwnProperty.call(message, "rowRangeEnd") && (typeof message.rowRangeEnd === "object" ? message.rowRangeEnd.low || message.rowRangeEnd.high : message.rowRangeEnd !== 0))
                    writer.uint32(/* id 2, wireType 0 =*/16).int64(message.rowRangeEnd);
                if (message.indexFieldId != null && $Object.hasOwnProperty.call(message, "indexFieldId") && message.indexFieldId !== 0)
                    writer.uint32(/* id 3, wireType 0 =*/24).int32(message.indexFieldId);
                if (message.extraFieldIds != null && $Object.hasOwnProperty.call(message, "extraFieldIds"))
                    $root.tributary.protocol.IntList.encode(message.extraFieldIds, writer.uint32(/* id 4, wireType 2 =*/34).fork(), _depth + 1).ldelim();
                if (message.indexMeta != null && $Object.hasOwnProperty.call(message, "indexMeta"))
                    writer.uint32(/* id 5, wireType 2 =*/42).bytes(message.indexMeta);
                if (message.sourceMeta != null && $Object.hasOwnProperty.call(message, "sourceMeta"))
                    writer.uint32(/* id 6, wireType 2 =*/50).bytes(message.sourceMeta);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes a GlobalIndexMeta message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.GlobalIndexMeta
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.GlobalIndexMeta & tributary.protocol.GlobalIndexMeta.$Shape} GlobalIndexMeta
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            GlobalIndexMeta.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message, value;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.GlobalIndexMeta();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.rowRangeStart = value;
                            else
                                delete message.rowRangeStart;
                            continue;
                        }
                    case 2: {
                            if (wireType !== 0)
                                break;
                            if (typeof (value = reader.int64()) === "object" ? value.low || value.high : value !== 0)
                                message.rowRangeEnd = value;
                            else
                                delete message.rowRangeEnd;
                            continue;
                        }
                    case 3: {
                            if (wireType !== 0)
                                break;
                            if (value = reader.int32())
                                message.indexFieldId = value;
                            else
                                delete message.indexFieldId;
                            continue;
                        }
                    case 4: {
                            if (wireType !== 2)
                                break;
                            message.extraFieldIds = $root.tributary.protocol.IntList.decode(reader, reader.size(), $undefined, _depth + 1, message.extraFieldIds);
                            continue;
                        }
                    case 5: {
                            if (wireType !== 2)
                                break;
                            message.indexMeta = reader.bytes();
                            message._indexMeta = "indexMeta";
                            continue;
                        }
                    case 6: {
                            if (wireType !== 2)
                                break;
                            message.sourceMeta = reader.bytes();
                            message._sourceMeta = "sourceMeta";
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return GlobalIndexMeta;
        })();

        protocol.IntList = (function() {

            /**
             * Properties of an IntList.
             * @typedef {Object} tributary.protocol.IntList.$Properties
             * @property {Array.<number>} [values] IntList values
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */

            /**
             * Properties of an IntList.
             * @memberof tributary.protocol
             * @interface IIntList
             * @augments tributary.protocol.IntList.$Properties
             * @deprecated Use tributary.protocol.IntList.$Properties instead.
             */

            /**
             * Shape of an IntList.
             * @typedef {tributary.protocol.IntList.$Properties} tributary.protocol.IntList.$Shape
             */

            /**
             * Constructs a new IntList.
             * @memberof tributary.protocol
             * @classdesc Represents an IntList.
             * @constructor
             * @param {tributary.protocol.IntList.$Properties=} [properties] Properties to set
             * @property {Array.<Uint8Array>} [$unknowns] Unknown fields preserved while decoding when enabled
             */
            const IntList = function (properties) {
                this.values = [];
                if (properties)
                    for (let keys = $Object.keys(properties), i = 0; i < keys.length; ++i)
                        if (properties[keys[i]] != null && keys[i] !== "__proto__")
                            this[keys[i]] = properties[keys[i]];
            };

            /**
             * IntList values.
             * @member {Array.<number>} values
             * @memberof tributary.protocol.IntList
             * @instance
             */
            IntList.prototype.values = $util.emptyArray;

            /**
             * Creates a new IntList instance using the specified properties.
             * @function create
             * @memberof tributary.protocol.IntList
             * @static
             * @param {tributary.protocol.IntList.$Properties=} [properties] Properties to set
             * @returns {tributary.protocol.IntList} IntList instance
             * @type {{
             *   (properties: tributary.protocol.IntList.$Shape): tributary.protocol.IntList & tributary.protocol.IntList.$Shape;
             *   (properties?: tributary.protocol.IntList.$Properties): tributary.protocol.IntList;
             * }}
             */
            IntList.create = function(properties) {
                return new IntList(properties);
            };

            /**
             * Encodes the specified IntList message. Does not implicitly {@link tributary.protocol.IntList.verify|verify} messages.
             * @function encode
             * @memberof tributary.protocol.IntList
             * @static
             * @param {tributary.protocol.IntList.$Properties} message IntList message or plain object to encode
             * @param {$protobuf.Writer} [writer] Writer to encode to
             * @returns {$protobuf.Writer} Writer
             */
            IntList.encode = function (message, writer, _depth) {
                if (!writer)
                    writer = $Writer.create();
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $util.recursionLimit)
                    throw $Error("max depth exceeded");
                if (message.values != null && message.values.length)
                    writer.uint32(/* id 1, wireType 2 =*/10).int32s(message.values);
                if (message.$unknowns != null && $Object.hasOwnProperty.call(message, "$unknowns"))
                    for (let i = 0; i < message.$unknowns.length; ++i)
                        writer.raw(message.$unknowns[i]);
                return writer;
            };

            /**
             * Decodes an IntList message from the specified reader or buffer.
             * @function decode
             * @memberof tributary.protocol.IntList
             * @static
             * @param {$protobuf.Reader|Uint8Array} reader Reader or buffer to decode from
             * @param {number} [length] Message length if known beforehand
             * @returns {tributary.protocol.IntList & tributary.protocol.IntList.$Shape} IntList
             * @throws {Error} If the payload is not a reader or valid buffer
             * @throws {$protobuf.util.ProtocolError} If required fields are missing
             */
            IntList.decode = function (reader, length, _end, _depth, _target) {
                if (!(reader instanceof $Reader))
                    reader = $Reader.create(reader);
                if (_depth === $undefined)
                    _depth = 0;
                if (_depth > $Reader.recursionLimit)
                    throw $Error("max depth exceeded");
                let end, message;
                if (length === $undefined)
                    end = reader.len;
                else {
                    end = reader.pos + length;
                    if (end > reader.len)
                        throw $RangeError("index out of range");
                    length = reader.len;
                    reader.len = end;
                }
                message = _target || new $root.tributary.protocol.IntList();
                while (reader.pos < end) {
                    let start = reader.pos;
                    let tag = reader.tag();
                    if (tag === _end) {
                        _end = $undefined;
                        break;
                    }
                    let wireType = tag & 7;
                    switch (tag >>>= 3) {
                    case 1: {
                            if (wireType === 2) {
                                if (!(message.values && message.values.length))
                                    message.values = [];
                                reader.int32s(message.values);
                                continue;
                            }
                            if (wireType !== 0)
                                break;
                            if (!(message.values && message.values.length))
                                message.values = [];
                            message.values.push(reader.int32());
                            continue;
                        }
                    }
                    reader.skipType(wireType, _depth, tag);
                    if (!reader.discardUnknown) {
                        $util.makeProp(message, "$unknowns", false);
                        (message.$unknowns || (message.$unknowns = [])).push(reader.raw(start, reader.pos));
                    }
                }
                if (length !== $undefined) {
                    if (reader.pos !== end)
                        throw $RangeError("index out of range");
                    reader.len = length;
                }
                if (_end !== $undefined)
                    throw $Error("missing end group");
                return message;
            };

            return IntList;
        })();

        return protocol;
    })();

    return tributary;
})();

export {
  $root as default
};
