import CXML2

/// An XML element as plain values: its local name (namespace prefix dropped), attributes, child
/// elements and text. libxml2 parses; the manifest readers walk this, pure and testable.
package struct XMLElement: Equatable, Sendable {
    package var name: String
    package var attributes: [String: String]
    package var children: [XMLElement]
    package var text: String

    package init(name: String, attributes: [String: String] = [:], children: [XMLElement] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The child elements named `name`, in order.
    package func elements(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// The first child element named `name`.
    package func element(_ name: String) -> XMLElement? { children.first { $0.name == name } }

    package subscript(attribute: String) -> String? { attributes[attribute] }
}

/// Reads a document with libxml2 into an XMLElement tree. Neither the network nor a DTD is
/// reached for, and entities are not expanded (XML_PARSE_NONET, no XML_PARSE_NOENT/DTDLOAD): a
/// manifest is a stranger's document. Elements nested deeper than `depthLimit` are refused.
package enum XMLTree {
    package static let depthLimit = 64

    package static func parse(_ bytes: [UInt8]) throws(XMLTreeError) -> XMLElement {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    xmlReadMemory($0, Int32(clamping: buffer.count), nil, nil, options)
                }
            } ?? nil
        }
        guard let document else {
            let reason = xmlGetLastError().map { String(Substring(String(cString: $0.pointee.message)).trimmingWhitespace()) } ?? "not XML"
            throw XMLTreeError(reason: "not well-formed XML (\(reason))")
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else { throw XMLTreeError(reason: "an XML document with no element") }
        return try element(root, depth: 0)
    }

    private static func element(_ node: xmlNodePtr, depth: Int) throws(XMLTreeError) -> XMLElement {
        guard depth < depthLimit else { throw XMLTreeError(reason: "elements nested deeper than \(depthLimit)") }
        var result = XMLElement(name: string(node.pointee.name))
        var attribute = node.pointee.properties
        while let current = attribute {
            result.attributes[string(current.pointee.name)] = text(of: current.pointee.children)
            attribute = current.pointee.next
        }
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE: result.children.append(try element(current, depth: depth + 1))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: result.text += string(current.pointee.content)
            default: break
            }
            child = current.pointee.next
        }
        return result
    }

    /// The text of a list of text nodes (an attribute's value).
    private static func text(of first: xmlNodePtr?) -> String {
        var result = ""
        var node = first
        while let current = node {
            result += string(current.pointee.content)
            node = current.pointee.next
        }
        return result
    }

    private static func string(_ characters: UnsafePointer<xmlChar>?) -> String {
        guard let characters else { return "" }
        return String(cString: characters)
    }
}

package struct XMLTreeError: Error, Equatable, Sendable {
    package var reason: String
}
